# cmake -DIN=FILE -DOUT=FILE.gz -P gzip_doc.cmake: gzip -9n, as Debian policy asks of documentation (-n: no
# name or time stamp in the header, so the package is the same from build to build).
execute_process(COMMAND gzip -9n -c ${IN} OUTPUT_FILE ${OUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE ${OUT})
  message(FATAL_ERROR "gzip -9n ${IN} failed (${status})")
endif()
