r() { /work/main/build/nbodylab bench --algo barneshut --backend cpu --scene plummer -n 20000 --steps 1 --warmup 0 --theta 0.7 --bh_moments $2 --error-sample 20000 --eps 0.01 --seed $1 2>&1 | awk '/RMS per body/{print $NF}'; }
for s in 13530099317068394096 $(seq 1 60); do m=$(r $s monopole); q=$(r $s quadrupole); python3 -c "print('$s', $m, $q, round($q/$m,3))"; done
