# Session 11, call 4: the suite's tests (every GPU test binary) and barneshut parts at the session's last code commit.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
R=/tmp/res && rm -rf $R && mkdir -p $R && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version --format=csv >> $R/info.txt && date -u >> $R/info.txt
start=$SECONDS
OUT=$R/suite PARTS="tests barneshut" timeout 560 bash scripts/gpu-suite.sh run > $R/suite-stdout.log 2>&1; echo "suite rc=$? $((SECONDS-start))s" >> $R/info.txt
cd /tmp && tar czf $OUT/res.tgz res
