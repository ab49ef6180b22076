# Session 11, call 1: replay the quadrupole test's failing seed, then the suite's tests and barneshut parts at HEAD.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version --format=csv >> $R/info.txt && date -u >> $R/info.txt
start=$SECONDS
(NBODYLAB_TEST_SEED=13530099317068394096 timeout 100 stdbuf -oL $B/cuda_barneshut_gpu_test --gtest_filter='*QuadrupolesCut*' > $R/t-replay.log 2>&1; echo "replay rc=$? $((SECONDS-start))s" >> $R/info.txt)
OUT=$R/suite PARTS="tests barneshut" timeout 420 bash scripts/gpu-suite.sh run > $R/suite-stdout.log 2>&1; echo "suite rc=$? $((SECONDS-start))s" >> $R/info.txt
cd /tmp && tar czf $OUT/res.tgz res
