. tmp-gpu/env.sh
R=$OUT/r; mkdir -p $R; cp gpu-bundle/commit.txt $R/
hdr() { echo "# nbodylab $(cat gpu-bundle/commit.txt | cut -c1-12) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u '+%Y-%m-%d %H:%M UTC')"; echo "# $*"; }
lab() { local name=$1; shift; local s=$SECONDS; { hdr nbodylab --offscreen --size 1920x1080 --backend gpu --scene collision -n 1048576 "$@"; timeout 90 $B/nbodylab --offscreen --size 1920x1080 --backend gpu --scene collision -n 1048576 "$@" --trace $R/$name.csv 2>&1; } > $R/$name.log; echo "== $name rc=$? $((SECONDS-s))s"; grep -E "all:|steps \(own" $R/$name.log | cut -c1-200; }
t() { local name=$1 lim=$2; shift 2; local s=$SECONDS; timeout $lim "$@" > $R/test-$name.log 2>&1; echo "test $name rc=$? $((SECONDS-s))s $(grep -E '^\[  (PASSED|FAILED)' $R/test-$name.log | tr '\n' ' ')"; }
t bh 200 $B/cuda_barneshut_gpu_test --gtest_filter='*StopsInside*:*SlicedSteps*:*VoteEarlyOut*:*EveryStepOfTheTour*'
t ap 150 $B/cuda_allpairs_gpu_test --gtest_brief=1
lab bh-default --algo barneshut --frames 600
lab bh-240 --algo barneshut --frames 2400 --refresh 240
python3 scripts/lab_pace.py $R/bh-240.csv --from 2 --to 8 > $R/bh-240.txt; cat $R/bh-240.txt
{ hdr bench sort off; timeout 40 $B/nbodylab bench --algo barneshut --backend gpu --scene collision -n 1048576 --bh_sort off --steps 3 --warmup 1; } > $R/bench-sort-off.log 2>&1; BS=$(grep "ms per step" $R/bench-sort-off.log | awk '{print $NF}')
lab sort-off --algo barneshut --refresh 60 --script assets/scripts/slow-variant.json
python3 scripts/lab_pace.py $R/sort-off.csv --from 8 --to 16 --bench-ms $BS --p95-max 25 --rate-min 0.9 --drag --switch 2 --switch-max 1.5 | tee $R/sort-off.txt
{ hdr bench allpairs; timeout 60 $B/nbodylab bench --algo allpairs --backend gpu --scene collision -n 1048576 --steps 2 --warmup 1; } > $R/bench-allpairs.log 2>&1; BMS=$(grep "ms per step" $R/bench-allpairs.log | awk '{print $NF}')
lab ap-whole --algo allpairs --refresh 60 --slice-ms 0 --script assets/scripts/orbit-while-stepping.json
python3 scripts/lab_pace.py $R/ap-whole.csv --from 4 --to 12 --bench-ms $BMS --p95-max 25 --rate-min 0.9 --drag | tee $R/ap-whole.txt
lab ap-20hz --algo allpairs --refresh 20 --script assets/scripts/orbit-while-stepping.json
python3 scripts/lab_pace.py $R/ap-20hz.csv --from 4 --to 12 --bench-ms $BMS --rate-min 0.9 --drag | tee $R/ap-20hz.txt
for a in allpairs barneshut; do n=65536; [ $a = barneshut ] && n=1048576; s=$SECONDS
{ hdr nbodylab --offscreen --size 1920x1080 --refresh 60 --backend gpu --algo $a -n $n --script tour-$a-live.json; timeout 200 $B/nbodylab --offscreen --size 1920x1080 --refresh 60 --backend gpu --algo $a -n $n --script tour-$a-live.json 2>&1; } > $R/tour-$a.log; echo "tour $a rc=$? $((SECONDS-s))s"; mv tour-$a-predictions.* $R/ 2>/dev/null; done
cat $R/tour-allpairs-predictions.md 2>/dev/null | head -30
cd $OUT && rm -f r/*.csv.keep; tar czf r.tgz r && rm -rf r
