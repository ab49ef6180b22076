# Session 11, call 5: the Barnes-Hut GPU test's sweep and relative-opening tests at the final HEAD (the sweep's tolerances changed after run4).
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
R=/tmp/res && rm -rf $R && mkdir -p $R && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version --format=csv >> $R/info.txt && date -u >> $R/info.txt
start=$SECONDS
(timeout 300 stdbuf -oL gpu-bundle/bin/cuda_barneshut_gpu_test --gtest_filter='*EverySwitch*:*Relative*:*ForcesMatch*' > $R/t-bh.log 2>&1; echo "t-bh rc=$? $((SECONDS-start))s" >> $R/info.txt)
cd /tmp && tar czf $OUT/res.tgz res
