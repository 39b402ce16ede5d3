# The cases of tests/hostile.sh, by class: `refuse CLASS EXPECTED ARGS...`
# (@ is tapir; $setup, when set, prepares the case's folder). Sourced by
# hostile.sh, which runs each in a fresh copy of its fixtures.

T=(--task modadd --opt p=23 --width 16 --heads 2 --layers 1 --steps 4 --threads 1 --quiet)

# --- numbers: every number flag of train, and each command's own --------
for flag in width heads layers mlp-ratio context spline-knots attn-spline-knots attn-fn-knots \
  warmup decay steps batch eval-every eval-batch eval-limit dual-batch dual-every threads; do
  for value in abc 1.5 99999999999999999999 "" 0x10 -99999999999999999999; do
    refuse numbers "--$flag: expected|--$flag: an empty value" @ train "${T[@]}" "--$flag" "$value" \
      --out new
  done
  refuse numbers "$flag|${flag//-/ }" @ train "${T[@]}" "--$flag" -1 --out new
done
for flag in lr weight-decay beta1 beta2 eps momentum min-lr-ratio clip stop-at init-std dual-lr \
  beta rope-base; do
  for value in abc nan inf -inf 1e999 ""; do
    refuse numbers "--$flag: expected|--$flag: an empty value" @ train "${T[@]}" "--$flag" "$value" \
      --out new
  done
  refuse numbers "$flag|${flag//-/ }" @ train "${T[@]}" "--$flag" -1 --out new
done
for value in -1 99999999999999999999 abc; do
  refuse numbers "--seed" @ train "${T[@]}" --seed "$value" --out new
  refuse numbers "--seeds" @ compare "${T[@]}" --seeds "$value" --out new
  refuse numbers "models" @ search "${T[@]}" --models "$value" --out new
  refuse numbers "--repeat" @ search "${T[@]}" --repeat "$value" --out new
  refuse numbers "search-steps" @ transfer --tasks add,copy --search-steps "$value" --out new
  refuse numbers "--limit" @ eval --checkpoint run --limit "$value"
  refuse numbers "--batch" @ dump --checkpoint run --batch "$value" --out new.safetensors
  refuse numbers "--repeats" @ robust --checkpoint run --repeats "$value" --svg none
  refuse numbers "--degree" @ arch fit-poly search/arch.safetensors --range -4,4 --degree "$value" -o new.json
done
refuse numbers "--seeds" @ compare "${T[@]}" --seeds 0 --out new
refuse numbers "--seeds" @ compare "${T[@]}" --seeds 1001 --out new
refuse numbers "models" @ search "${T[@]}" --models 0 --out new
refuse numbers "--threshold" @ compare "${T[@]}" --threshold 1.5 --out new
refuse numbers "--threshold" @ compare "${T[@]}" --threshold nan --out new
refuse numbers "--threshold" @ compare "${T[@]}" --threshold 0.5,0.5 --out new
for value in abc nan inf 0 -1 3601 ""; do
  refuse numbers "--interval" @ report run --watch --interval "$value"
done
refuse numbers "--interval requires --watch" @ report run --interval 2
# A file is no experiment's folder: refused at once, watched or not.
refuse files "is a file, not a folder" @ report --watch run/config.json
setup="mkdir theirs && echo notes >theirs/notes.txt"
refuse state "holds files no tapir command wrote" @ report --watch theirs
setup=""
setup="mkdir mine && echo notes >mine/notes.txt"
refuse state "which no search --repeat wrote" @ search "${T[@]}" --repeat 2 --out mine
setup=""
refuse files "is a file, not a folder" @ report run/config.json
refuse numbers "gamma" @ robust --checkpoint run --gamma -1 --svg none
refuse numbers "--gamma" @ robust --checkpoint run --gamma abc --svg none
refuse numbers "--gamma" @ robust --checkpoint run --gamma 1,,2 --svg none
refuse numbers "alpha" @ train "${T[@]}" --constraint descent --alpha -0.5 --out new
refuse numbers "alpha" @ train "${T[@]}" --alpha 1 --out new
refuse numbers "--alpha" @ train "${T[@]}" --constraint descent --alpha 0.1,abc --out new
refuse numbers "--alpha" @ layers --checkpoint crun --alpha -1 --svg none
refuse numbers "--spline-range" @ train "${T[@]}" --mlp-act spline --spline-range 5,-5 --out new
refuse numbers "--spline-range" @ train "${T[@]}" --mlp-act spline --spline-range 0,1e999 --out new
refuse numbers "--spline-range" @ train "${T[@]}" --mlp-act spline --spline-range 1 --out new
refuse numbers "spline init" @ train "${T[@]}" --mlp-act spline --spline-init const:abc --out new
refuse numbers "--attn-fn-range" @ train "${T[@]}" --attn-fn spline --attn-fn-range 5,-5 --out new
refuse numbers "--attn-fn-range" @ train "${T[@]}" --attn-fn spline --attn-fn-range 1 --out new
refuse numbers "spline init" @ train "${T[@]}" --attn-fn spline --attn-fn-init const:nan --out new
refuse numbers "--layers" @ arch import fns.csv --layers 0 -o new.safetensors
refuse numbers "--layers" @ arch import fns.csv --layers abc -o new.safetensors
refuse numbers "decay" @ train "${T[@]}" --schedule trapezoid --warmup 2 --decay 3 --out new
refuse numbers "decay" @ train "${T[@]}" --schedule trapezoid --out new
refuse numbers "decay applies to the trapezoid" @ train "${T[@]}" --schedule cosine --decay 2 --out new
refuse numbers "arch-warmup" @ search "${T[@]}" --arch-warmup -1 --out new
refuse numbers "arch-decay" @ search "${T[@]}" --arch-schedule trapezoid --arch-decay -2 --out new
refuse numbers "arch-decay" @ search "${T[@]}" --arch-schedule trapezoid --out new
refuse numbers "must fit in the 4 steps" @ search "${T[@]}" --arch-schedule trapezoid \
  --arch-warmup 3 --arch-decay 2 --out new
refuse numbers "must fit in the 6 steps" @ search "${T[@]}" --search-steps 6 --arch-schedule trapezoid \
  --arch-warmup 3 --arch-decay 4 --out new
refuse numbers "arch-min-lr-ratio" @ search "${T[@]}" --arch-min-lr-ratio 2 --out new
refuse numbers "arch-warmup" @ transfer --tasks add,copy --arch-warmup -1 --out new
refuse numbers "--range" @ arch stats search/arch.safetensors --range 3,-3
refuse numbers "--range" @ arch control search/arch.safetensors --kind gelu --range 3,-3 --out c.safetensors
refuse names "unknown control" @ arch control search/arch.safetensors --kind wiggly --out c.safetensors
refuse reuse "are one search" @ compare "${T[@]}" --arch-file search/arch.safetensors --arch-file ./search/arch.safetensors --out new
setup="cp search/arch.safetensors copy.safetensors"
refuse reuse "hold the same bytes" @ compare "${T[@]}" --arch-file search/arch.safetensors --arch-file copy.safetensors --out new
setup=""
refuse numbers "--tune: 'seed' is not a key it tunes" @ compare "${T[@]}" --tune seed=1,2 --out new
refuse numbers "--tune: an empty value" @ compare "${T[@]}" --tune lr=1e-3,,3e-3 --out new
refuse numbers "--tune: 'lr' is given twice" @ compare "${T[@]}" --tune lr=1e-3 --tune lr=3e-3 --out new
refuse numbers "--tune-seeds" @ compare "${T[@]}" --tune lr=1e-3 --tune-seeds 0 --out new
refuse numbers "give --tune too" @ compare "${T[@]}" --tune-baseline lr=1e-3,3e-3 --out new
refuse names "--probe-split: modadd has no split 'foo'" @ compare "${T[@]}" --layer-profile --probe-split foo --out new
refuse numbers "--tune: 'seed' is not a key it tunes" @ compare "${T[@]}" --tune lr=1e-3 --tune-baseline seed=1 --out new
refuse numbers "eval-on arch needs train-on train" @ train "${T[@]}" --eval-on arch --out new
refuse numbers "train-noise and train-gamma go together" @ train "${T[@]}" --train-gamma 0.5 --out new
refuse numbers "does not take --constraint" @ train "${T[@]}" --train-noise gaussian --train-gamma 0.5 --constraint descent --out new
refuse numbers "ds-weight must be positive" @ train "${T[@]}" --constraint deep-supervision --ds-weight 0 --out new
refuse numbers "--range" @ arch stats search/arch.safetensors --range abc
refuse numbers "knots in" @ arch stats search/arch.safetensors --range 0.01,0.02
for value in 0 1.5 nan -1 abc ""; do
  refuse numbers "central" @ arch fit-poly search/arch.safetensors --run run --central "$value" --degree 3 -o new.json
done
refuse numbers "--central" @ arch fit-poly search/arch.safetensors --range -4,4 --central 0.9 --degree 3 -o new.json
refuse numbers "--uniform" @ arch fit-poly search/arch.safetensors --range -4,4 --uniform --degree 3 -o new.json
refuse numbers "steps" @ train --resume run --steps 0
refuse numbers "steps" @ train --resume run --steps -3
refuse numbers "--steps" @ train --resume run --steps 99999999999999999999
setup="printf 'tapir search folder\n' >run/.tapir"
refuse state "its marker says it is a tapir search folder, not a run folder" @ train --resume run --steps 8
setup="mv run/config.json run/c.json && ln -s c.json run/config.json"
refuse state "its 'config.json' is a symbolic link" @ train --resume run --steps 8
setup="mv run/resume.safetensors run/r.safetensors && ln -s r.safetensors run/resume.safetensors"
refuse state "its 'resume.safetensors' is a symbolic link" @ train --resume run --steps 8
# Check, then change: a resume or a --force meets one planted fault (a
# link anywhere below the folder, a folder where a file belongs, a pipe)
# and refuses before it cuts, removes or writes anything.
setup="ln -s ../user/notes.txt run/tokenizer.model"
refuse state "its 'tokenizer.model' is a symbolic link" @ train --resume run --steps 8
refuse state "'run/tokenizer.model' is a symbolic link" @ train "${T[@]}" --out run --force
setup="cp -a search/models user/m && rm -r search/models && ln -s ../user/m search/models"
refuse state "its 'models' is a symbolic link" @ search --resume search --search-steps 8
refuse state "'search/models' is a symbolic link" @ search "${T[@]}" --models 2 --spline-knots 9 \
  --out search --force
setup="cp -a search/snapshots user/s && rm -r search/snapshots && ln -s ../user/s search/snapshots"
refuse state "its 'snapshots' is a symbolic link" @ search --resume search --search-steps 8
setup="mv search/models/model-0/metrics.jsonl user/m.jsonl && ln -s ../../../user/m.jsonl \
  search/models/model-0/metrics.jsonl"
refuse state "its 'models/model-0/metrics.jsonl' is a symbolic link" @ search --resume search \
  --search-steps 8
setup="rm run/checkpoint.safetensors && mkdir run/checkpoint.safetensors && echo x >run/checkpoint.safetensors/mine"
refuse state "'run/checkpoint.safetensors' is a folder where a file belongs" @ train "${T[@]}" \
  --out run --force
refuse state "its 'checkpoint.safetensors' is a folder where a file belongs" @ train --resume run \
  --steps 8
setup="mkfifo run/pipe"
refuse state "'run/pipe' is not a regular file" @ train "${T[@]}" --out run --force
refuse state "its 'pipe' is not a regular file" @ train --resume run --steps 8
setup="rm cmp/baseline/seed-0/finished && ln -s ../../../user cmp/baseline/seed-0/elsewhere"
refuse state "cannot resume 'cmp/baseline/seed-0': its 'elsewhere' is a symbolic link" @ compare \
  "${T[@]}" --eval-every 2 --eval-limit 32 --seeds 1 --threshold 0.5 --spline-knots 9 \
  --arch-file search/arch.safetensors --out cmp
setup=""

# --- environment --------------------------------------------------------
for value in abc 0 -1 1.5 99999 99999999999999999999 ""; do
  refuse environment "TAPIR_THREADS" env "TAPIR_THREADS=$value" @ train "${T[@]}" --out new
done
refuse environment "TAPIR_THREADS" env TAPIR_THREADS=abc @ tasks show modadd
for command in train compare search robust-compare; do
  refuse environment "TAPIR_PROGRESS" env TAPIR_PROGRESS=loud @ "$command" "${T[@]}" --constraint descent --mlp-act spline --out new
done
refuse environment "TAPIR_BLAS_CORETYPE" env TAPIR_BLAS_CORETYPE=Nonesuch @ train "${T[@]}" --out new
for value in naive Reference ""; do
  refuse environment "TAPIR_KERNELS: expected tuned or reference" env "TAPIR_KERNELS=$value" @ train "${T[@]}" --out new
done
refuse environment "unknown core type 'Has" env TAPIR_BLAS_CORETYPE=$'Has\nwell' @ train "${T[@]}" --out new

# --- config files -------------------------------------------------------
refuse config "not a regular file" @ train --config /dev/zero --out new
refuse config "not a regular file" @ train --config run --out new
refuse config "cannot read" @ train --config missing.toml --out new
setup='printf "[train]\nsteps = 3\nlr = 1\nsteps = 4\n" >dup.toml'
refuse config "given twice" @ train --config dup.toml --task modadd --out new
setup='printf "[train]\nsteps = 3\n[train]\nsteps = 4\n" >dup.toml'
refuse config "given twice" @ train --config dup.toml --task modadd --out new
setup='printf "[train]\nlrr = 3\n" >bad.toml'
refuse config "unknown key" @ train --config bad.toml --out new
setup='printf "[trian]\nlr = 3\n" >bad.toml'
refuse config "trian" @ train --config bad.toml --out new
setup='printf "[train]\nsteps = abc\n" >bad.toml'
refuse config "bad.toml" @ train --config bad.toml --task modadd --out new
setup='printf "[train]\nsteps = 99999999999999999999\n" >bad.toml'
refuse config "bad.toml" @ train --config bad.toml --task modadd --out new
setup='printf "[train]\nlr = nan\n" >bad.toml'
refuse config "bad.toml" @ train --config bad.toml --task modadd --out new
setup='head -c 2000000 /dev/zero | tr "\0" "#" >big.toml'
refuse config "at most 1 MiB" @ train --config big.toml --out new
setup=""

# --- names: tasks, options, variants, splits, choices ------------------
refuse names "unknown task" @ train --task nope --out new
refuse names "--task: an empty value" @ train --task "" --out new
refuse names "\\x1b" @ train --task $'mod\x1badd' --out new
refuse names "\\x07" @ train "${T[@]}" --opt $'p\x07=3' --out new
refuse names "option" @ train "${T[@]}" --opt nonesuch=3 --out new
refuse names "--opt expects name=value" @ train "${T[@]}" --opt p --out new
refuse names "p" @ train "${T[@]}" --opt p=abc --out new
refuse names "p" @ train "${T[@]}" --opt p=1 --out new
refuse names "p" @ train --task modadd --opt p=23 --opt p=29 --steps 4 --out new
refuse names "mlp-act" @ train "${T[@]}" --mlp-act swish --out new
refuse names "attn" @ train "${T[@]}" --attn nope --out new
refuse names "pos" @ train "${T[@]}" --pos nope --out new
refuse names "norm" @ train "${T[@]}" --norm batch --out new
refuse names "norm" @ train "${T[@]}" --norm "" --out new
refuse names "rope base" @ train "${T[@]}" --pos rope --rope-base 1 --out new
refuse names "rope needs an even head width" @ train --task modadd --opt p=23 --width 6 --heads 2 \
  --layers 1 --steps 4 --threads 1 --quiet --pos rope --out new
refuse names "feature-spline cannot be combined with positions rope" @ train "${T[@]}" \
  --pos rope --attn feature-spline --out new
refuse names "tie-embeddings needs token input" @ train --task denoise --width 16 --heads 2 \
  --layers 1 --steps 4 --threads 1 --quiet --tie-embeddings --out new
refuse names "--qk-norm" @ train "${T[@]}" --qk-norm=maybe --out new
refuse names "--no-bias" @ train "${T[@]}" --no-bias=maybe --out new
refuse names "optimizer" @ train "${T[@]}" --optimizer lion --out new
refuse names "schedule" @ train "${T[@]}" --schedule step --out new
refuse names "arch-schedule" @ search "${T[@]}" --arch-schedule step --out new
refuse names "stagger" @ search "${T[@]}" --stagger sometimes --out new
refuse names "stagger" @ transfer --tasks add,copy --stagger sometimes --out new
refuse names "preset" @ train "${T[@]}" --preset gpt2 --out new
refuse names "preset" @ search "${T[@]}" --preset "" --out new
refuse names "protocol" @ search "${T[@]}" --protocol authorz --out new
refuse names "protocol" @ compare "${T[@]}" --protocol "" --out new
refuse names "protocol" @ transfer --tasks add,copy --protocol papers --out new
refuse names "protocol" @ train "${T[@]}" --protocol authors --out new
refuse names "verdict metric" @ compare "${T[@]}" --verdict speed --out new
refuse names "METRIC:SPLIT" @ compare "${T[@]}" --verdict accuracy: --out new
refuse names "evaluates no split 'test_long'" @ compare "${T[@]}" --verdict accuracy:test_long --out new
refuse names "train-on" @ train "${T[@]}" --train-on test --out new
refuse names "--train-on is for training outside Stage I" @ search "${T[@]}" --train-on all --out new
refuse names "constraint" @ train "${T[@]}" --constraint ascent --out new
refuse names "device" @ train "${T[@]}" --device tpu --out new
refuse names "spline-extrapolate" @ train "${T[@]}" --spline-extrapolate cubic --out new
refuse names "attn-fn" @ train "${T[@]}" --attn-fn relu --out new
refuse names "attn-fn-extrapolate" @ train "${T[@]}" --attn-fn-extrapolate cubic --out new
refuse names "attn-fn-scope" @ train "${T[@]}" --attn-fn-scope block --out new
refuse names "spline init" @ train "${T[@]}" --attn-fn-init tanh --out new
refuse names "--scope" @ arch import fns.csv --scope some -o new.safetensors
refuse names "variant" @ compare "${T[@]}" --variant "" --out new
refuse names "variant" @ compare "${T[@]}" --variant bogus=1 --out new
refuse names "variant" @ compare "${T[@]}" --variant baseline --variant baseline --out new
refuse names "arch" @ compare "${T[@]}" --variant arch: --out new
refuse names "tasks" @ transfer --tasks add,add --out new
refuse names "unknown task" @ transfer --tasks add,nope --out new
refuse names "tasks" @ transfer --tasks "" --out new
refuse names "task-opt" @ transfer --tasks add,copy --task-opt nope:x=1 --out new
refuse names "task-opt" @ transfer --tasks add,copy --task-opt add:digits=2 --task-opt add:digits=3 --out new
refuse names "split" @ eval --checkpoint run --split nope
refuse names "split" @ dump --checkpoint run --split nope --out new.safetensors
refuse names "split" @ layers --checkpoint run --split nope --svg none
refuse names "noise" @ robust --checkpoint run --noise loud --svg none
refuse names "unknown task" @ tasks show nope
refuse names "unexpected argument" @ eval --checkpoint run --bogus
refuse names "unexpected" @ report run extra
RC=(robust-compare "${T[@]}" --constraint descent --seeds 1)
refuse names "arm-name" @ "${RC[@]}" --arm-name "" --out new
refuse names "arm-name" @ "${RC[@]}" --arm-name ../up --out new
refuse names "arm-name" @ "${RC[@]}" --arm-name erm --out new
refuse names "noise" @ "${RC[@]}" --noise loud --out new
refuse names "split" @ "${RC[@]}" --split nope --out new

# --- input files: missing, empty, garbage, cut short, of another kind ---
for file in missing.safetensors empty.safetensors garbage.safetensors truncated.safetensors \
  poly.json user; do
  refuse files "$file" @ eval --checkpoint "$file"
  refuse files "$file" @ layers --checkpoint "$file" --svg none
  refuse files "$file" @ robust --checkpoint "$file" --svg none
  refuse files "$file" @ dump --checkpoint "$file" --out new.safetensors
  refuse files "$file" @ train "${T[@]}" --mlp-act spline --arch "$file" --out new
  refuse files "$file" @ compare "${T[@]}" --arch-file "$file" --out new
  refuse files "$file" @ plot arch "$file" -o new.svg
  refuse files "$file" @ arch fit-poly "$file" --range -4,4 --degree 3 -o new.json
done
for file in missing.json bad.json garbage.safetensors run/config.json; do
  refuse files "$file" @ train "${T[@]}" --mlp-poly "$file" --out new
done
# A device or a folder where a file is meant: refused before a byte is read.
refuse files "/dev/zero: is not a regular file" @ train "${T[@]}" --mlp-poly /dev/zero --out new
refuse files "/dev/zero: is not a regular file" @ arch import /dev/zero -o new.safetensors
refuse files "search: is a folder, not a file" @ arch import search -o new.safetensors
# arch import: the authors' CSV format (fns.csv, 4 good pairs, is made by
# each set-up), damaged one way per case.
good='for i in 1 2 3 4; do printf -- "-1,0,1\n$i,0.5,2\n"; done >fns.csv'
for file in missing.csv garbage.safetensors user; do
  refuse files "$file" @ arch import "$file" -o new.safetensors
done
setup="$good; printf -- '-1,0\n1,2\n' >>fns.csv"
refuse files "line 9: has 2 numbers, expected 3" @ arch import fns.csv -o new.safetensors
setup="$good; printf -- '-1,0,1\n1,two,3\n' >>fns.csv"
refuse files "line 10 number 2: expected a finite number, got 'two'" @ arch import fns.csv -o new.safetensors
setup="$good; printf -- '-1,0,1\n' >>fns.csv"
refuse files "has 9 lines, expected an even count" @ arch import fns.csv -o new.safetensors
setup="$good; printf -- '-1,0,1\n1,2,3\n' >>fns.csv"
refuse files "holds 5 functions, expected 4 (MLP) or 8" @ arch import fns.csv -o new.safetensors
setup="$good; sed -i '1s/.*/1,0,-1/' fns.csv"
refuse files "line 1: knot 2 (0) does not exceed knot 1 (1)" @ arch import fns.csv -o new.safetensors
setup="$good; sed -i '1s/.*/-1,0.25,1/' fns.csv"
refuse files "expected 0 (equally spaced knots" @ arch import fns.csv -o new.safetensors
setup="$good; sed -i '3s/.*/-2,0,2/' fns.csv"
refuse files "line 3: the knots differ from those of line 1" @ arch import fns.csv -o new.safetensors
setup="$good"
refuse files "cannot be shared" @ arch import fns.csv --scope shared -o new.safetensors
setup="$good && \"\$tapir\" arch import fns.csv -o fns.arch.safetensors"
refuse files "per layer for 4 layers, but the model has 1" @ train "${T[@]}" --arch fns.arch.safetensors --out new
setup="$good"
refuse outputs "fns.csv" @ arch import fns.csv -o fns.csv
setup=""
refuse files "user/" @ report user
refuse files "report" @ report missing
setup='echo "{not json" >run/config.json'
refuse files "config.json" @ report run
refuse files "config.json" @ eval --checkpoint run
refuse files "config.json" @ train --resume run --steps 8
setup='echo "[]" >run/config.json'
refuse files "config.json" @ report run
refuse files "config.json" @ train --resume run --steps 8
setup='echo "{\"steps\": \"many\"}" >run/config.json'
refuse files "config.json" @ train --resume run --steps 8
setup='rm run/resume.safetensors'
refuse files "resume" @ train --resume run --steps 8
setup='cp garbage.safetensors run/resume.safetensors'
refuse files "resume.safetensors" @ train --resume run --steps 8
setup='cp truncated.safetensors run/resume.safetensors'
refuse files "resume.safetensors" @ train --resume run --steps 8
setup='cp srun/resume.safetensors run/resume.safetensors'
refuse files "resume.safetensors" @ train --resume run --steps 8
setup='printf "{\"step\": 1, \"split\"\n" >>run/metrics.jsonl; printf "garbage\n" >>run/metrics.jsonl'
refuse files "metrics.jsonl" @ train --resume run --steps 8
setup='cp garbage.safetensors search/resume.safetensors'
refuse files "resume.safetensors" @ search --resume search
setup='echo "{" >search/search.json'
refuse files "search.json" @ search --resume search
setup='echo "{" >cmp/compare.json'
refuse files "compare.json" @ report cmp
setup=""
refuse files "train needs --out" @ train "${T[@]}"
refuse files "resume" @ train --resume missing --steps 8
refuse files "resume" @ train --resume user --steps 8
refuse files "search.json" @ search --resume user
refuse files "resume" @ search --resume missing

# --- outputs: folders and files tapir does not own ---------------------
refuse outputs "already exists" @ train "${T[@]}" --out run
refuse outputs "already exists" @ train "${T[@]}" --out user
refuse outputs "already exists" @ search "${T[@]}" --out search
refuse outputs "user" @ train "${T[@]}" --out user --force
refuse outputs "user" @ search "${T[@]}" --out user --force
refuse outputs "user" @ compare "${T[@]}" --out user
refuse outputs "user" @ "${RC[@]}" --out user
refuse outputs "user" @ transfer --tasks add,copy --out user
refuse outputs "notes.txt" @ train "${T[@]}" --out user/notes.txt
refuse outputs "notes.txt" @ compare "${T[@]}" --out user/notes.txt
refuse outputs "checkpoint" @ dump --checkpoint run --out run/checkpoint.safetensors
refuse outputs "arch.safetensors" @ arch fit-poly search/arch.safetensors --range -4,4 --degree 3 -o search/arch.safetensors
refuse outputs "poly.json" @ train "${T[@]}" --mlp-poly poly.json --out poly.json
refuse outputs "config.json" @ report run -o run/config.json
setup='ln -s ../user/notes.txt run/.lock.tmp && rm run/.lock && ln -s ../user/notes.txt run/.lock'
refuse outputs ".lock" @ train --resume run --steps 8
setup='ln -s /nonexistent/place newlink'
refuse outputs "newlink" @ train "${T[@]}" --out newlink
setup='ln -s user/notes.txt link.svg'
refuse outputs "link.svg" @ plot arch search/arch.safetensors -o link.svg
setup='ln -s user/notes.txt link.json'
refuse outputs "link.json" @ arch fit-poly search/arch.safetensors --range -4,4 --degree 3 -o link.json
setup='ln -s user/notes.txt link.safetensors'
refuse outputs "link.safetensors" @ dump --checkpoint run --out link.safetensors
setup=""

# --- state: files that parse but contradict the run, the model or themselves
R=(train --resume run --steps 8)
setup='sed -i "s/\"optimizer_steps\":\"4\"/\"optimizer_steps\":\"3\"/" run/resume.safetensors'
refuse state "optimizer_steps" @ "${R[@]}"
setup='sed -i "s/\"step\":\"4\"/\"step\":\"9\"/" run/resume.safetensors'
refuse state "step" @ "${R[@]}"
setup='sed -i "s/\"step\":\"4\"/\"step\":\"-\"/" run/resume.safetensors'
refuse state "step" @ "${R[@]}"
setup='sed -i "s/\"constraint_pending_steps\":\"0\"/\"constraint_pending_steps\":\"7\"/" crun/resume.safetensors'
refuse state "constraint_pending_steps" @ train --resume crun --steps 8
setup='sed -i "s/\"constraint_pending_steps\"/\"constraint_pending_stepz\"/" crun/resume.safetensors'
refuse state "constraint_pending_steps" @ train --resume crun --steps 8
S=(search --resume search --search-steps 8)
setup='sed -i "s/\"model-1\/start\":\"0\"/\"model-1\/start\":\"3\"/" search/resume.safetensors'
refuse state "start" @ "${S[@]}"
setup='sed -i "s/\"model-0\/generation\":\"0\"/\"model-0\/generation\":\"5\"/" search/resume.safetensors'
refuse state "generation" @ "${S[@]}"
setup='sed -i "s/\"model-1\/optimizer_steps\":\"4\"/\"model-1\/optimizer_steps\":\"2\"/" search/resume.safetensors'
refuse state "optimizer_steps" @ "${S[@]}"
setup='sed -i "0,/\"optimizer_steps\":\"4\"/s//\"optimizer_steps\":\"1\"/" search/resume.safetensors'
refuse state "optimizer_steps" @ "${S[@]}"
setup=""
refuse state "layer" @ train "${T[@]}" --layers 2 --mlp-act spline --spline-knots 9 \
  --arch search/arch.safetensors --out new
setup='sed -i "s/\"degree\": 3/\"degree\": 4/" poly.json'
refuse state "degree" @ train "${T[@]}" --mlp-poly poly.json --out new
setup='sed -i "s/\"degree\": 3/\"degree\": 99/" poly.json'
refuse state "degree" @ train "${T[@]}" --mlp-poly poly.json --out new
setup='sed -i "s/\"lo\": -4.0/\"lo\": 4.0/" poly.json'
refuse state "poly.json" @ train "${T[@]}" --mlp-poly poly.json --out new
setup='sed -i "s/\"layer\": 0/\"layer\": 3/" poly.json'
refuse state "poly.json" @ train "${T[@]}" --mlp-poly poly.json --out new
setup=""

# --- reuse: a finished run whose inputs or outputs changed since ---------
C=(compare "${T[@]}" --eval-every 2 --eval-limit 32 --seeds 1 --threshold 0.5 --spline-knots 9
  --arch-file search/arch.safetensors --out cmp)
setup='cp srun/arch.safetensors search/arch.safetensors'
refuse reuse "arch" @ "${C[@]}"
setup='head -n 1 cmp/baseline/seed-0/metrics.jsonl >cut && mv cut cmp/baseline/seed-0/metrics.jsonl'
refuse reuse "metrics.jsonl" @ "${C[@]}"
setup='printf "x" >>cmp/baseline/seed-0/checkpoint.safetensors'
refuse reuse "checkpoint" @ "${C[@]}"
setup='rm cmp/.tapir'
refuse reuse "cmp" @ "${C[@]}"
setup=""

# --- identity: a run is what its checkpoint says (optim/run_identity.h) -
# config.json edited after training (a field that leaves every shape as it
# was), the run's tokenizer copy swapped, its corpus changed: every command
# that reads the run refuses, naming the field or file and both values.
setup='sed -i "s/\"qk_norm\": false/\"qk_norm\": true/" run/config.json'
refuse identity "model.qk_norm is true, but run/checkpoint.safetensors was trained with false" \
  @ eval --checkpoint run
refuse identity "model.qk_norm is true" @ layers --checkpoint run --svg none
refuse identity "model.qk_norm is true" @ robust --checkpoint run --svg none
refuse identity "model.qk_norm is true" @ dump --checkpoint run --out new.safetensors
refuse identity "model.qk_norm is true, but run/resume.safetensors was trained with false" \
  @ train --resume run --steps 8
setup='sed -i "s/\"rope_base\": 10000.0/\"rope_base\": 500.0/" srun/config.json'
refuse identity "model.rope_base is 500.0, but srun/checkpoint.safetensors" @ plot arch \
  srun/arch.safetensors --run srun -o new.svg
setup='sed -i "s/\"lr\": [0-9.e-]*/\"lr\": 0.5/" run/config.json'
refuse identity "schedule.lr is 0.5, but run/resume.safetensors" @ train --resume run --steps 8
setup='sed -i "s/\"qk_norm\": false/\"qk_norm\": true/" search/search.json'
refuse identity "base.model.qk_norm is true, but search/resume.safetensors" @ search --resume search \
  --search-steps 8
setup='for f in cmp/*/seed-0/config.json; do sed -i "s/\"qk_norm\": false/\"qk_norm\": true/" $f; done'
refuse identity "model.qk_norm is true, but cmp/" @ compare "${T[@]}" --eval-every 2 --eval-limit 32 \
  --seeds 1 --threshold 0.5 --spline-knots 9 --arch-file search/arch.safetensors --qk-norm --out cmp
setup='cp tok2.model trun/tokenizer.model'
refuse identity "trun/tokenizer.model is not the tokenizer trun/checkpoint.safetensors" \
  @ eval --checkpoint trun
refuse identity "trun/tokenizer.model is not the tokenizer trun/resume.safetensors" \
  @ train --resume trun --steps 8
setup='cp tok2.model ssearch/tokenizer.model'
refuse identity "ssearch/tokenizer.model is not the tokenizer ssearch/resume.safetensors" \
  @ search --resume ssearch --search-steps 8
setup='echo "one more line" >>corpus.txt'
refuse identity "corpus.txt is not the corpus trun/checkpoint.safetensors" @ eval --checkpoint trun
refuse identity "corpus.txt is not the corpus trun/checkpoint.safetensors" @ layers \
  --checkpoint trun --svg none
setup=""

# --- sizes: more memory than any machine has, refused before allocating -
refuse sizes "GiB of memory" @ train --task modadd --width 65536 --mlp-ratio 64 --layers 64 \
  --heads 1 --out new
refuse sizes "GiB of memory" @ train --task modadd --width 65536 --heads 1 --context 99999999999 \
  --out new
refuse sizes "GiB of memory" @ compare --task modadd --width 65536 --mlp-ratio 64 --layers 64 \
  --heads 1 --out new
refuse sizes "GiB of memory" @ search --task modadd --width 65536 --mlp-ratio 64 --layers 64 \
  --heads 1 --out new
refuse sizes "GiB of memory" @ robust-compare --task modadd --width 65536 --mlp-ratio 64 \
  --layers 64 --heads 1 --constraint descent --out new
refuse sizes "GiB of memory" @ transfer --tasks add,copy --width 65536 --mlp-ratio 64 --layers 64 \
  --heads 1 --out new
refuse numbers "range" @ arch fit-poly search/arch.safetensors --range -1e308,1e308 --degree 3 \
  -o new.json
refuse numbers "range" @ arch fit-poly search/arch.safetensors --range 1,1 --degree 3 -o new.json
refuse numbers "snapshot-every" @ search "${T[@]}" --snapshot-every -1 --out new
refuse numbers "arch-beta1" @ search "${T[@]}" --arch-beta1 1.5 --out new
refuse numbers "--arch-lr" @ search "${T[@]}" --arch-lr abc --out new
refuse numbers "arch-lr" @ search "${T[@]}" --arch-lr -1 --out new
refuse numbers "--eval-limit" @ compare "${T[@]}" --eval-limit -99999999999999999999 --out new
refuse numbers "--probe-limit" @ compare "${T[@]}" --probe-limit abc --out new
refuse numbers "--limit" @ robust-compare "${T[@]}" --constraint descent --limit 1e3 --out new
refuse numbers "limit" @ robust-compare "${T[@]}" --constraint descent --limit -5 --out new
refuse names "unknown command 'nosuch'" @ nosuch --out new
refuse names "unknown command" @ $'tr\x1bain' --out new
refuse names "a command is required" @
refuse names "--checkpoint is required" @ eval
# The baseline would train first; the arch run after it has changed input:
# every run is checked before the first trains.
setup='rm -r cmp/baseline/seed-0 && cp srun/arch.safetensors search/arch.safetensors'
refuse reuse "arch" @ "${C[@]}"
setup=""

# Subword tokenizers: the model file, and the text task's option.
X=(--task text --opt path=corpus.txt --opt context=16 --width 16 --heads 2 --layers 1 --steps 2
  --threads 1 --quiet)
refuse files "tok.model already exists" @ tokenizer train --path corpus.txt --out tok.model
refuse files "same file" @ tokenizer train --path corpus.txt --out corpus.txt --force
refuse files "does not exist" @ tokenizer train --path nosuch.txt --out new.model
refuse files "not a SentencePiece model" @ train "${X[@]}" --opt tokenizer=garbage.safetensors \
  --out new
refuse files "tokenizer file 'nosuch.model' does not exist" @ train "${X[@]}" \
  --opt tokenizer=nosuch.model --out new
refuse files "not a SentencePiece model" @ tokenizer encode bad.json "the cat"
refuse names "vocab and tokenizer" @ train "${X[@]}" --opt tokenizer=tok.model --opt vocab=6162 \
  --out new
refuse names "has an empty value" @ train "${X[@]}" --opt tokenizer= --out new
# An unset shell variable is no value: refused, never read as "none".
refuse names "--arch: an empty value" @ train "${T[@]}" --arch "" --out new
refuse names "--mlp-poly: an empty value" @ train "${T[@]}" --mlp-poly "" --out new
refuse names "--arch: an empty value" @ compare "${T[@]}" --seeds 1 --arch "" --out new
refuse names "--checkpoint: an empty value" @ eval --checkpoint ""
refuse names "file: an empty value" @ plot arch "" -o new.svg
refuse names "--out: an empty value" @ search "${T[@]}" --out ""
refuse names "--type" @ tokenizer train --path corpus.txt --type wordpiece --out new.model
refuse numbers "--vocab-size" @ tokenizer train --path corpus.txt --vocab-size 257 --out new.model
# A range check alone lets NaN through (its comparisons are false).
for flag in test-frac character-coverage; do
  refuse numbers "--$flag: expected" @ tokenizer train --path corpus.txt --$flag nan --out new.model
done
refuse numbers "--vocab-size" @ tokenizer train --path corpus.txt --vocab-size abc --out new.model
refuse numbers "is more pieces than this text can fill" @ tokenizer train --path corpus.txt --vocab-size 99999 \
  --out new.model
refuse numbers "--vocab-size 258 is below the" @ tokenizer train --path corpus.txt --vocab-size 258 --out new.model
refuse sizes "too few for option context = 5000" @ train --task text --opt path=corpus.txt \
  --opt tokenizer=tok.model --opt context=5000 --width 16 --heads 2 --layers 1 --out new
refuse files "lies in ssearch" @ search --task text --opt path=corpus.txt --opt context=16 \
  --opt tokenizer=ssearch/tokenizer.model --width 16 --heads 2 --layers 1 --models 2 --steps 4 \
  --threads 1 --force --out ssearch

# --- claims: records and the runner (claims/README.md) -----------------
R='{"id": "T1-x", "order": 1, "paper": "p", "paper_source": "paper", "claim": "c",
 "paper_figure": "2x", "setting": "s", "protocol": "tapir", "command": "c",
 "measure": {"statistic": "s", "better": "lower", "null": 1, "size": 0.5, "rule": "effect",
 "format": "ratio", "decimals": 2},
 "result": {"value": 1.18, "lo": 1.0, "hi": 1.33, "interval": "95% CI", "searches": 3, "seeds": 3,
 "status": "STATUS", "detail": "", "budget": "full", "wall_s": null, "commit": null, "date": null,
 "source": null}}'
setup=""
refuse files "nothing: no such folder of claim records" @ claims list --records nothing
setup="mkdir recs && echo '${R/STATUS/not reproduced}' >recs/T1-x.json"
refuse numbers "--ranks expects" @ claims run all --records recs --ranks 0
refuse names "no claim record 'T1-y'" @ claims list T1-y --records recs
refuse files "cannot open" @ claims run T1-x --records recs --experiments nosuch.json
refuse files "no claims tally markers" @ claims render --records recs --md new.md --html new.html \
  --readme recs/T1-x.json
setup="mkdir recs && echo '${R/STATUS/reproduced}' >recs/T1-x.json"
refuse files "is not what rule effect gives for 1.18x [1.00, 1.33]: not reproduced" @ claims list \
  --records recs
setup="mkdir recs && echo '${R/\"claim\"/\"claims\"}' >recs/T1-x.json"
refuse files "unknown key 'claims'" @ claims list --records recs
setup="mkdir recs && echo '${R/STATUS/not reproduced}' >recs/T1-z.json"
refuse files "id 'T1-x' is not the file's name" @ claims list --records recs
setup=""
