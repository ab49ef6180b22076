# Session 10, call 3: where the group walk's time goes (the walk alone, without cell or point evaluation), and two launch settings.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD && R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $R/info.txt && date -u >> $R/info.txt
export NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
K=$PWD/.gpu-carry/k
start=$SECONDS
OUT=$R/lab KERNELAB="main=$K/main walk=$K/walk nocells=$K/nocells nopoints=$K/nopoints" KERNELAB_CASES="plummer-1m plummer-10m" PARTS=kernelab timeout 300 scripts/gpu-suite.sh run > $R/lab-stdout.log 2>&1
echo "kernelab rc=$? $((SECONDS-start))s" >> $R/info.txt
b() { local name=$1; shift; timeout 40 $B/nbodylab bench --algo barneshut --backend gpu "$@" --json $R/$name.json > $R/$name.log 2>&1; echo "$name rc=$? $(grep -E 'ms per step \(median\)' $R/$name.log | awk '{print $NF}') p99 $(grep -E 'force error: 99th' $R/$name.log | head -1 | awk '{print $NF}') $((SECONDS-start))s" >> $R/info.txt; }
P1="--scene plummer -n 1048576 --steps 10 --warmup 2 --error-sample 1000"
for r in 1 2; do
b r$r-default-1m $P1
b r$r-list512-1m $P1 --bh_list_capacity 512
b r$r-block128-1m $P1 --bh_block_size 128
b r$r-leaf4-1m $P1 --bh_leaf_capacity 4
done
cd /tmp && tar czf $OUT/res.tgz res
