# Session 11, call 2: relative opening (bh_opening=relative) against the default angle; then the Barnes-Hut GPU tests.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && git log --oneline -1 >> $R/info.txt; nvidia-smi --query-gpu=name,driver_version --format=csv >> $R/info.txt && date -u >> $R/info.txt
start=$SECONDS
b() { local name=$1 t=$2; shift 2; timeout $t $B/nbodylab bench --algo barneshut --backend gpu "$@" --json $R/$name.json > $R/$name.log 2>&1; echo "$name rc=$? ms $(grep -E 'ms per step \(median\)' $R/$name.log | awk '{print $NF}') force $(grep -E '^force ' $R/$name.log | head -1 | awk '{print $2}') inter $(grep -E '^interactions per step' $R/$name.log | awk '{print $NF}') p99 $(grep -E 'force error: 99th' $R/$name.log | head -1 | awk '{print $NF}') max $(grep -E 'force error: max' $R/$name.log | head -1 | awk '{print $NF}') $((SECONDS-start))s" >> $R/info.txt; }
P1="--scene plummer -n 1048576 --steps 10 --warmup 2 --error-sample 2000"
b geo-1m 40 $P1
for tol in 40 20 80; do b rel$tol-1m 40 $P1 --bh_opening relative --bh_tolerance $tol; done
b geo-1m-r2 30 $P1
b rel40-1m-r2 30 $P1 --bh_opening relative --bh_tolerance 40
P10="--scene plummer -n 10000000 --steps 3 --warmup 1 --error-sample 4000"
b geo-10m 50 $P10
b rel40-10m 50 $P10 --bh_opening relative --bh_tolerance 40
b rel20-10m 50 $P10 --bh_opening relative --bh_tolerance 20
b rel40-4m 40 --scene plummer -n 4194304 --steps 5 --warmup 1 --error-sample 2000 --bh_opening relative --bh_tolerance 40
b geo-coll-1m 30 --scene collision -n 1048576 --steps 10 --warmup 2 --error-sample 2000
b rel40-coll-1m 30 --scene collision -n 1048576 --steps 10 --warmup 2 --error-sample 2000 --bh_opening relative --bh_tolerance 40
(NBODYLAB_TEST_SEED=13530099317068394096 timeout 60 stdbuf -oL $B/cuda_barneshut_gpu_test --gtest_filter='*QuadrupolesCut*' > $R/t-replay.log 2>&1; echo "replay rc=$? $((SECONDS-start))s" >> $R/info.txt)
(timeout 40 stdbuf -oL $B/cuda_barneshut_geometry_gpu_test > $R/t-geo.log 2>&1; echo "t-geo rc=$? $((SECONDS-start))s" >> $R/info.txt)
rem=$((560 - SECONDS + start)); (timeout $rem stdbuf -oL $B/cuda_barneshut_gpu_test > $R/t-bh.log 2>&1; echo "t-bh rc=$? $((SECONDS-start))s" >> $R/info.txt)
cd /tmp && tar czf $OUT/res.tgz res
