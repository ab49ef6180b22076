. tmp-gpu/env.sh
R=$OUT/r; mkdir -p $R
lab() { local name=$1; shift; local s=$SECONDS; timeout 60 $B/nbodylab --offscreen --size 1920x1080 --backend gpu --scene collision -n 1048576 "$@" --trace $R/$name.csv > $R/$name.log 2>&1; echo "== $name rc=$? $((SECONDS-s))s"; grep -E "stats:|all:|steps \(own" $R/$name.log | cut -c1-300; }
lab bh-default --algo barneshut --frames 600
lab bh-whole --algo barneshut --frames 600 --slice-ms 0
lab bh-240 --algo barneshut --frames 1200 --refresh 240
timeout 60 $B/cuda_allpairs_gpu_test --gtest_filter='*ARefusedAsynchronous*' > $R/ap-refused.log 2>&1; echo "ap-refused rc=$?"; grep -E "Failure|Expected|Which|actual|PASSED|FAILED" $R/ap-refused.log | head
timeout 60 $B/nbodylab bench --algo allpairs --backend gpu --scene collision -n 1048576 --steps 2 --warmup 1 > $R/ap-bench.log 2>&1; grep "ms per step" $R/ap-bench.log
BMS=$(grep "ms per step" $R/ap-bench.log | awk '{print $NF}')
for k in 4 6 8; do NBL_EXPERIMENT_SLICE_BLOCKS=$k lab ap-fill$k --algo allpairs --refresh 60 --script assets/scripts/orbit-while-stepping.json
python3 scripts/lab_pace.py $R/ap-fill$k.csv --from 4 --to 12 --bench-ms $BMS --p95-max 25 --rate-min 0.9 --drag | tee $R/ap-fill$k.txt; done
timeout 40 $B/nbodylab bench --algo barneshut --backend gpu --scene collision -n 1048576 --bh_sort off --steps 3 --warmup 1 > $R/bh-bench-sort-off.log 2>&1; BS=$(grep "ms per step" $R/bh-bench-sort-off.log | awk '{print $NF}'); echo "sort-off bench $BS"
lab sort-off --algo barneshut --refresh 60 --script assets/scripts/slow-variant.json
python3 scripts/lab_pace.py $R/sort-off.csv --from 8 --to 16 --bench-ms $BS --p95-max 25 --rate-min 0.9 --drag --switch 2 --switch-max 1.5 | tee $R/sort-off.txt
cd $OUT && tar czf r.tgz r && rm -rf r
