# Session 10, call 5: the new default (force block of 128) under the Barnes-Hut GPU tests; the thread and warp walks at 128 and 256.
tar xJf .gpu-carry/bundle.tar.xz && export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:$LD_LIBRARY_PATH NBODYLAB_ROOT=$PWD && R=/tmp/res && rm -rf $R && mkdir -p $R && B=gpu-bundle/bin && cat gpu-bundle/commit.txt > $R/info.txt && nvidia-smi --query-gpu=name,driver_version --format=csv >> $R/info.txt && date -u >> $R/info.txt
export NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
start=$SECONDS
b() { local name=$1 t=$2; shift 2; timeout $t $B/nbodylab bench --algo barneshut --backend gpu "$@" --json $R/$name.json > $R/$name.log 2>&1; echo "$name rc=$? $(grep -E 'ms per step \(median\)' $R/$name.log | awk '{print $NF}') p99 $(grep -E 'force error: 99th' $R/$name.log | head -1 | awk '{print $NF}') $((SECONDS-start))s" >> $R/info.txt; }
P1="--scene plummer -n 1048576 --steps 10 --warmup 2 --error-sample 1000"
b default-1m 25 $P1
(timeout 30 stdbuf -oL $B/cuda_barneshut_geometry_gpu_test > $R/t-geo.log 2>&1; echo "t-geo rc=$? $((SECONDS-start))s" >> $R/info.txt)
for w in thread warp; do for bs in 256 128; do b $w-b$bs-1m 20 $P1 --bh_traversal $w --bh_block_size $bs; done; done
(timeout 165 stdbuf -oL $B/cuda_barneshut_gpu_test > $R/t-bh.log 2>&1; echo "t-bh rc=$? $((SECONDS-start))s" >> $R/info.txt)
cd /tmp && tar czf $OUT/res.tgz res
