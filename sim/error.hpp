// Errors are values at the boundaries and exceptions inside (CONTRIBUTING.md). Every failure that reaches a
// user is one of these, carrying a message written for that user; main() prints it and exits non-zero.
#pragma once
#include <stdexcept>
#include <string>

namespace nbl {

// Something went wrong that the user can act on (a GPU error, a missing shader, a failed compile).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The user gave us something we cannot accept: a bad option, a malformed file, an out-of-range value.
// Raised where input enters (CLI, JSON, file readers), before anything is allocated or written.
class InputError : public Error {
 public:
  using Error::Error;
};

}  // namespace nbl
