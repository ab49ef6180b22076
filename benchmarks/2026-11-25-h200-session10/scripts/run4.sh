# Session 10, call 4: force block size (64/128/256) on every case, the 24,000-step collision at 128 threads, and where the walk's time goes.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD && R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $R/info.txt && date -u >> $R/info.txt
export NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
K=$PWD/.gpu-carry/k
start=$SECONDS
b() { local name=$1 t=$2; shift 2; timeout $t $B/nbodylab bench --algo barneshut --backend gpu "$@" --json $R/$name.json > $R/$name.log 2>&1; echo "$name rc=$? $(grep -E 'ms per step \(median\)' $R/$name.log | awk '{print $NF}') p99 $(grep -E 'force error: 99th' $R/$name.log | head -1 | awk '{print $NF}') $((SECONDS-start))s" >> $R/info.txt; }
P1="--scene plummer -n 1048576 --steps 10 --warmup 2 --error-sample 1000"
PC="--scene collision -n 1048576 --steps 10 --warmup 2 --error-sample 1000"
P4="--scene plummer -n 4194304 --steps 5 --warmup 1 --error-sample 1000"
P10="--scene plummer -n 10000000 --steps 3 --warmup 1 --error-sample 1000"
for v in walk nocells nopoints; do b diag-$v-1m 40 $P1 --kernels $K/$v; done
for r in 1 2; do for case in P1 PC P4 P10; do for bs in 256 128 64; do
  [ $((SECONDS-start)) -lt 330 ] && b r$r-$case-b$bs 40 ${!case} --bh_block_size $bs
done; done; done
b long-b128 250 --scene collision -n 1048576 --steps 24000 --warmup 0 --error-sample 1000 --bh_block_size 128 --save /tmp/end.tipsy
for bs in 256 128; do [ -f /tmp/end.tipsy ] && b end-b$bs 40 --scene collision --load /tmp/end.tipsy --eps 0.003937 --dt 0.01 --steps 20 --warmup 2 --error-sample 1000 --bh_block_size $bs; done
cd /tmp && tar czf $OUT/res.tgz res
