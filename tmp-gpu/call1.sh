. tmp-gpu/env.sh
mkdir -p $OUT/tests
t() { local name=$1 lim=$2; shift 2; local s=$SECONDS; timeout $lim "$@" > $OUT/tests/$name.log 2>&1; echo "test $name rc=$? $((SECONDS-s))s $(grep -E '^\[  (PASSED|FAILED)' $OUT/tests/$name.log | tr '\n' ' ')"; }
t bh-stop 120 $B/cuda_barneshut_gpu_test --gtest_filter='*StopsInside*:*SlicedSteps*:*VoteEarlyOut*'
t allpairs 150 $B/cuda_allpairs_gpu_test --gtest_brief=1
t interop 90 $B/app_interop_tests --gtest_brief=1
t lab-gpu 120 $B/app_lab_gpu_tests --gtest_brief=1
s=$SECONDS; OUT=$OUT/suite PARTS="pace splat" timeout $((590-SECONDS)) scripts/gpu-suite.sh run > $OUT/suite.log 2>&1; echo "suite rc=$? $((SECONDS-s))s"
sed -n '/==== summary/,$p' $OUT/suite.log | cut -c1-600 | tail -30
# exploration: all-pairs 1M with longer slices
BMS=$(python3 -c "import json;t=json.load(open('$OUT/suite/pace-bench-allpairs.json'));print([r['ms'] for x in t if 'Per stage' in x['title'] for r in x['rows'] if r['stage']=='total'][0])" 2>/dev/null)
for sm in 20; do [ $((590-SECONDS)) -gt 40 ] || break
timeout $((590-SECONDS)) $B/nbodylab --offscreen --size 1920x1080 --refresh 60 --backend gpu --scene collision -n 1048576 --algo allpairs --slice-ms $sm --script assets/scripts/orbit-while-stepping.json --trace $OUT/ap-slice$sm.csv > $OUT/ap-slice$sm.log 2>&1
python3 scripts/lab_pace.py $OUT/ap-slice$sm.csv --from 4 --to 12 --bench-ms ${BMS:-529.8} --p95-max 25 --rate-min 0.9 --drag | tee $OUT/ap-slice$sm.txt; done
