# Session 11, call 3: the suite's barneshut part (defaults and relative opening), the 24,000-step collision with relative opening, hard geometry with relative opening.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version --format=csv >> $R/info.txt && date -u >> $R/info.txt
start=$SECONDS
OUT=$R/suite PARTS="barneshut" timeout 200 bash scripts/gpu-suite.sh run > $R/suite-stdout.log 2>&1; echo "suite rc=$? $((SECONDS-start))s" >> $R/info.txt
timeout 150 $B/nbodylab bench --algo barneshut --backend gpu --scene collision -n 1048576 --bh_opening relative --steps 24000 --warmup 0 --error-sample 1000 --json $R/long-relative.json > $R/long-relative.log 2>&1; echo "long rc=$? $((SECONDS-start))s" >> $R/info.txt
timeout 120 $B/nbodylab bench geometry --backend gpu -n 1048576 --bh_opening relative --steps 5 --warmup 1 --error-sample 1000 --json $R/geometry-relative.json > $R/geometry-relative.log 2>&1; echo "geometry rc=$? $((SECONDS-start))s" >> $R/info.txt
cd /tmp && tar czf $OUT/res.tgz res
