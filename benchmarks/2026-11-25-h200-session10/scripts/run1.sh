# Session 10, call 1: the split-last-slot branch against main's group kernel and two launch variants.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD && R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $R/info.txt && date -u >> $R/info.txt
export NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
K=$PWD/.gpu-carry/k
start=$SECONDS
(timeout 150 $B/cuda_barneshut_gpu_test --gtest_brief=1 > $R/t-bh.log 2>&1; echo "t-bh rc=$? $((SECONDS-start))s" >> $R/info.txt)
(timeout 60 $B/cuda_barneshut_geometry_gpu_test --gtest_brief=1 > $R/t-geo.log 2>&1; echo "t-geo rc=$? $((SECONDS-start))s" >> $R/info.txt)
OUT=$R/lab KERNELAB="main=$K/main split= u8=$K/u8 lb3=$K/lb3 u8lb3=$K/u8lb3" KERNELAB_CASES="plummer-1m collision-1m plummer-10m plummer-4m" PARTS=kernelab timeout 330 scripts/gpu-suite.sh run > $R/lab-stdout.log 2>&1
echo "kernelab rc=$? $((SECONDS-start))s" >> $R/info.txt
b() { local name=$1; shift; timeout 60 $B/nbodylab bench --algo barneshut --backend gpu "$@" --json $R/$name.json > $R/$name.log 2>&1; echo "$name rc=$? $(grep -E 'ms per step \(median\)' $R/$name.log | awk '{print $NF}') p99 $(grep -E 'force error: 99th' $R/$name.log | head -1 | awk '{print $NF}') $((SECONDS-start))s" >> $R/info.txt; }
P1="--scene plummer -n 1048576 --steps 10 --warmup 2 --error-sample 1000"
P10="--scene plummer -n 10000000 --steps 3 --warmup 1"
for g in 128 64; do [ $((SECONDS-start)) -lt 500 ] && b split-g$g-1m $P1 --bh_group_size $g; done
[ $((SECONDS-start)) -lt 500 ] && b split-g128-10m $P10 --error-sample 1000 --bh_group_size 128
[ $((SECONDS-start)) -lt 510 ] && b split-10m-s4000 $P10 --error-sample 4000
cd /tmp && tar czf $OUT/res.tgz res
