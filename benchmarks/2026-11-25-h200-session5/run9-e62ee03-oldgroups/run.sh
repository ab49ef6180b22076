#!/bin/bash
# Run from the repository root of the e62ee03 working tree, with oldgroups/bh_groups.cu = 30f1b46:cuda/kernels/bh_groups.cu
# (the groups before the fix); its output: new.log, old.log beside this file.
# The same test binary with the old and the new bh_groups.cu (kernels compile at run time from NBODYLAB_ROOT).
set -u
old=/tmp/oldroot; rm -rf $old; mkdir -p $old/cuda
cp -r cuda/kernels $old/cuda/ && cp -r physics shaders assets $old/ && cp oldgroups/bh_groups.cu $old/cuda/kernels/bh_groups.cu
for who in new old; do
  root=$PWD; [[ $who == old ]] && root=$old
  NBODYLAB_ROOT=$root timeout 60 gpu-bundle/bin/cuda_barneshut_gpu_test --gtest_filter='*HugeDynamicRange*' --gtest_repeat=15 --gtest_brief=1 > $OUT/$who.log 2>&1
  echo "$who: $(grep -c '^\[  FAILED  \] BarnesHut' $OUT/$who.log) failed of 15 ($(grep -c 'Failure' $OUT/$who.log) failures)"
  grep -m3 "build .: relative" $OUT/$who.log
done
