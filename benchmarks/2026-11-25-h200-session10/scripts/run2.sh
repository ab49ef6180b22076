# Session 10, call 2: one evaluation site per list (smaller code) against main's kernel, with and without the split slot.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD && R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $R/info.txt && date -u >> $R/info.txt
export NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
K=$PWD/.gpu-carry/k
start=$SECONDS
OUT=$R/lab1 KERNELAB="main=$K/main one=$K/one onesplit=$K/onesplit oneu8=$K/oneu8 onesplitu8=$K/onesplitu8" KERNELAB_CASES="plummer-1m collision-1m" PARTS=kernelab timeout 220 scripts/gpu-suite.sh run > $R/lab1-stdout.log 2>&1
echo "kernelab-1m rc=$? $((SECONDS-start))s" >> $R/info.txt
OUT=$R/lab2 KERNELAB="main=$K/main one=$K/one onesplit=$K/onesplit" KERNELAB_CASES="plummer-10m plummer-4m" PARTS=kernelab timeout 150 scripts/gpu-suite.sh run > $R/lab2-stdout.log 2>&1
echo "kernelab-10m rc=$? $((SECONDS-start))s" >> $R/info.txt
b() { local name=$1; shift; timeout 40 $B/nbodylab bench --algo barneshut --backend gpu "$@" --json $R/$name.json > $R/$name.log 2>&1; echo "$name rc=$? $(grep -E 'ms per step \(median\)' $R/$name.log | awk '{print $NF}') p99 $(grep -E 'force error: 99th' $R/$name.log | head -1 | awk '{print $NF}') $((SECONDS-start))s" >> $R/info.txt; }
for v in one onesplit; do for tool in memcheck racecheck; do
  [ $((SECONDS-start)) -lt 480 ] && { timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $B/nbodylab bench --algo barneshut --backend gpu --scene plummer -n 10000 --steps 2 --warmup 0 --error-sample 0 --kernels $K/$v > $R/san-$v-$tool.log 2>&1; echo "san-$v-$tool rc=$? $((SECONDS-start))s" >> $R/info.txt; }
done; done
P1="--scene plummer -n 1048576 --steps 10 --warmup 2 --error-sample 1000"
[ $((SECONDS-start)) -lt 510 ] && b one-nofit-1m $P1 --kernels $K/one --bh_fit_slots off
[ $((SECONDS-start)) -lt 510 ] && b one-g128-1m $P1 --kernels $K/one --bh_group_size 128
[ $((SECONDS-start)) -lt 510 ] && b onesplit-g128-1m $P1 --kernels $K/onesplit --bh_group_size 128
[ $((SECONDS-start)) -lt 510 ] && b one-g64-1m $P1 --kernels $K/one --bh_group_size 64
cd /tmp && tar czf $OUT/res.tgz res
