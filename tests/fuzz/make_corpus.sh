#!/usr/bin/env bash
# Writes the seed corpus of the fuzz harnesses (tests/fuzz/corpus/<name>/):
# files the given tapir binary writes (tiny runs, an architecture file, a
# dump, configs/modadd.toml) and hand-made malformed variants of them.
#   tests/fuzz/make_corpus.sh build/release/tools/tapir
# The corpus is committed; this script documents where each seed came from
# and remakes them (the files libFuzzer found, named found-*, are kept).
# Every file stays under 16 KB.
set -euo pipefail

tapir=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in safetensors json arch resume constrained_resume search_resume config poly; do
  mkdir -p "$corpus/$name"
  find "$corpus/$name" -type f ! -name 'found-*' -delete
done

# --- helpers -----------------------------------------------------------------

# The 8 little-endian bytes of an integer (two's complement, so -1 is 2^64-1).
le64() {
  local n=$1 i
  for i in 0 1 2 3 4 5 6 7; do printf "\\x$(printf %02x $(((n >> (8 * i)) & 255)))"; done
}
# A safetensors file from its header text and its data (printf escapes).
st() { { le64 ${#1}; printf '%s' "$1"; printf "$2"; } >"$3"; }
# The header text of a safetensors file, and its data.
header_of() { head -c $((8 + $(od -An -t u8 -N8 "$1"))) "$1" | tail -c +9; }
data_of() { tail -c +$((9 + $(od -An -t u8 -N8 "$1"))) "$1"; }
# FILE with its header edited by a sed expression, written to OUT.
reheader() {
  local header
  header=$(header_of "$1" | sed -e "$2")
  { le64 ${#header}; printf '%s' "$header"; data_of "$1"; } >"$3"
}
# FILE with N bytes at OFFSET (into the data) replaced by the printf bytes.
poke_data() {
  cp "$1" "$4"
  printf "$3" | dd of="$4" bs=1 seek=$((8 + $(od -An -t u8 -N8 "$1") + $2)) conv=notrunc status=none
}

# FILE with the I32 word K of tensor NAME set to the printf bytes, written to OUT.
poke_word() {
  local at
  at=$(header_of "$1" | grep -o "\"$2\":{[^}]*}" | grep -o 'offsets":\[[0-9]*' | grep -o '[0-9]*$')
  poke_data "$1" $((at + 4 * $3)) "$4" "$5"
}

# --- files tapir writes ------------------------------------------------------

# The run the resume harness makes for itself (tests/fuzz/resume_fuzz.cpp).
tiny=(--task modadd --p 11 --width 8 --heads 2 --mlp-ratio 1 --batch 16
  --eval-every 2 --quiet)
"$tapir" train "${tiny[@]}" --layers 1 --steps 4 --out "$work/run"
# Learned functions: a per-layer MLP spline and per-head score splines; a
# shared feature-spline kernel.
"$tapir" train "${tiny[@]}" --steps 2 --layers 2 --mlp-act spline --spline-knots 9 \
  --attn score-spline --attn-spline-knots 7 --score-per-head --out "$work/spline"
"$tapir" train "${tiny[@]}" --steps 2 --layers 1 --attn feature-spline --attn-spline-knots 5 \
  --attn-spline-scope shared --out "$work/feature"
"$tapir" train "${tiny[@]}" --steps 2 --layers 1 --mlp-act spline --spline-knots 4 --spline-scope shared \
  --optimizer sgd --momentum 0.9 --out "$work/shared"
"$tapir" dump --checkpoint "$work/run" --out "$work/dump.safetensors" --batch 2
# The run the constrained_resume harness makes for itself
# (tests/fuzz/constrained_resume_fuzz.cpp): 1 pending step at its save.
"$tapir" train "${tiny[@]}" --layers 1 --steps 4 --constraint descent --alpha 0.05 \
  --resilient --dual-every 3 --out "$work/constrained"
# Poly files of a per-layer and of a shared MLP spline.
"$tapir" arch fit-poly "$work/spline/arch.safetensors" --degree 3 --range -2,2 -o "$work/layer.json"
"$tapir" arch fit-poly "$work/shared/arch.safetensors" --degree 0 --range -1,1 -o "$work/shared.json"

s=$corpus/safetensors
cp "$work/run/checkpoint.safetensors" "$s/valid-checkpoint"
cp "$work/spline/arch.safetensors" "$s/valid-arch"
cp "$work/shared/resume.safetensors" "$s/valid-resume-sgd"
cp "$work/dump.safetensors" "$s/valid-dump"

j=$corpus/json
for run in run spline feature shared; do cp "$work/$run/config.json" "$j/valid-config-$run"; done
head -n 1 "$work/run/metrics.jsonl" >"$j/valid-metrics-line"
header_of "$work/run/checkpoint.safetensors" >"$j/valid-safetensors-header"

a=$corpus/arch
cp "$work/spline/arch.safetensors" "$a/valid-mlp-layer-score-per-head"
cp "$work/feature/arch.safetensors" "$a/valid-feature-shared"
cp "$work/shared/arch.safetensors" "$a/valid-mlp-shared"

r=$corpus/resume
cp "$work/run/resume.safetensors" "$r/valid"

c=$corpus/config
cp "$here/../../configs/modadd.toml" "$c/valid-modadd"

# --- safetensors: malformed --------------------------------------------------

: >"$s/empty"
printf '\x10\x00\x00' >"$s/short-length"
le64 0 >"$s/header-length-zero"
le64 9223372036854775807 >"$s/header-length-int64-max"
{ le64 -1; printf '{}'; } >"$s/header-length-uint64-max"
{ le64 1099511627776; printf '{}'; } >"$s/header-length-1tib"
{ le64 100; printf '{}'; } >"$s/header-length-past-end"
st '{' '' "$s/header-not-json"
st '[1,2]' '' "$s/header-array"
st '{}' '' "$s/header-empty-object"
st '{}  trailing' '' "$s/header-trailing-garbage"
st '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' '\x00\x00\x80\x3f\x00\x00\x00\x40' "$s/one-f32"
st '{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/dtype-bf16"
st '{"a":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/dtype-lowercase"
st '{"a":{"dtype":7,"shape":[1],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/dtype-number"
st '{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/shape-negative"
st '{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}' '' "$s/shape-product-overflow"
st '{"a":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}}' '' "$s/shape-bytes-overflow"
st '{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/shape-fraction"
st '{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/shape-scalar"
st '{"a":{"dtype":"F32","shape":[0,5],"data_offsets":[0,0]}}' '' "$s/shape-zero"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}' '\x00\x00\x80\x3f' "$s/offsets-reversed"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4000]}}' '\x00\x00\x80\x3f' "$s/offsets-past-end"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[9223372036854775804,9223372036854775808]}}' '' "$s/offsets-int64-overflow"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}}' '\x00\x00\x80\x3f' "$s/offsets-negative"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}}' '\x00\x00\x80\x3f' "$s/offsets-one"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":["0","4"]}}' '\x00\x00\x80\x3f' "$s/offsets-strings"
st '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}' \
  '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40' "$s/offsets-overlapping"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}' \
  '\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x40\x40' "$s/offsets-gap"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}}' '\x00\x00\x00\x80\x3f\x00\x00\x00' "$s/offsets-unaligned"
st '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/offsets-shape-mismatch"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}' \
  '\x00\x00\x80\x3f\x00\x00\x80\x3f' "$s/duplicate-names"
st '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":1}}' '\x00\x00\x80\x3f' "$s/unknown-field"
st '{"":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/empty-name"
st $'{"a\xff\xfe":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}' '\x00\x00\x80\x3f' "$s/name-invalid-utf8"
st '{"a\n\u0000":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}}' '\x01\x00\x00\x00' "$s/name-control-chars"
st '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' '\x00\x00\xc0\x7f\x00\x00\x80\x7f' "$s/values-nan-inf"
st '{"__metadata__":{"format":"pt","k":"v"}}' '' "$s/metadata-only"
st '{"__metadata__":{"format":1}}' '' "$s/metadata-number"
st '{"__metadata__":{"a":{"b":"c"}}}' '' "$s/metadata-nested"
st '{"__metadata__":"x"}' '' "$s/metadata-string"
st '{"__metadata__":{"k":"v"},"__metadata__":{"k":"w"}}' '' "$s/metadata-twice"
st "$(printf '{"a":%.0s' {1..70})1$(printf '}%.0s' {1..70})" '' "$s/header-deep-nesting"
head -c 200 "$work/run/checkpoint.safetensors" >"$s/checkpoint-truncated-header"
head -c $((8 + $(od -An -t u8 -N8 "$work/run/checkpoint.safetensors") + 10)) \
  "$work/run/checkpoint.safetensors" >"$s/checkpoint-truncated-data"
reheader "$work/run/checkpoint.safetensors" 's/"F32"/"F64"/' "$s/checkpoint-f64"
reheader "$work/run/checkpoint.safetensors" 's/"data_offsets":\[0,/"data_offsets":[4,/' "$s/checkpoint-offset-moved"

# --- json: malformed, and configs tapir should refuse ------------------------

# Compact (the file is pretty-printed; no value holds a space), so each edit
# below is one substitution.
config=$(tr -d "\n " <"$work/run/config.json")
edit() { printf '%s' "$config" | sed -e "$1" >"$j/$2"; }
: >"$j/empty"
printf '{"a":1,}' >"$j/trailing-comma"
printf '[01]' >"$j/leading-zero"
printf '[9223372036854775807,9223372036854775808,-9223372036854775808,-9223372036854775809]' >"$j/int64-edges"
printf '[1e400,-1e400,1e-400,-0,-0.0,0e0,1E+2]' >"$j/number-edges"
printf '[NaN,Infinity]' >"$j/nan-literal"
printf '"\xff\xfe"' >"$j/invalid-utf8"
printf '"\xc0\x80"' >"$j/overlong-utf8"
printf '"\xed\xa0\x80"' >"$j/utf8-surrogate"
printf '"\\ud800"' >"$j/lone-high-surrogate"
printf '"\\udc00\\ud800"' >"$j/swapped-surrogates"
printf '"\\ud83d\\ude00\\u00e9\\u0000"' >"$j/escapes"
printf '"a\tb"' >"$j/raw-tab"
printf '"\\x"' >"$j/bad-escape"
printf '\xef\xbb\xbf{}' >"$j/bom"
printf '[1,{"a":"b"}]\0 [2]' >"$j/nul-after-value"
printf '{"a":1,"a":2}' >"$j/duplicate-keys"
printf '%s' "$(printf '[%.0s' {1..64})$(printf ']%.0s' {1..64})" >"$j/nesting-64"
printf '%s' "$(printf '[%.0s' {1..65})$(printf ']%.0s' {1..65})" >"$j/nesting-65"
printf '%s' "$(printf '[%.0s' {1..5000})" >"$j/nesting-unclosed"
printf '{"a" 1}' >"$j/missing-colon"
printf '"abc' >"$j/unterminated-string"
printf '[1] [2]' >"$j/two-values"
edit 's/"steps":[0-9]*/"steps":-5/' config-steps-negative
edit 's/"steps":[0-9]*/"steps":99999999999999999999/' config-steps-overflow
edit 's/"batch":[0-9]*/"batch":1e300/' config-batch-huge
edit 's/"width":[0-9]*/"width":0/' config-width-zero
edit 's/"heads":[0-9]*/"heads":3/' config-heads-not-dividing
edit 's/"layers":[0-9]*/"layers":1000000000/' config-layers-huge
edit 's/"seed":[0-9]*/"seed":-1/' config-seed-negative
edit 's/"threads":[0-9]*/"threads":4294967297/' config-threads-overflow
edit 's/"lr":[0-9.e-]*/"lr":"fast"/' config-lr-string
edit 's/"lr":[0-9.e-]*/"lr":null/' config-lr-null
edit 's/"task":"modadd"/"task":"nosuch"/' config-task-unknown
edit 's/"task_options":{/"task_options":{"p":"-3",/' config-task-option-negative
edit 's/"task_options":{/"task_options":{"nosuch":"1",/' config-task-option-unknown
edit 's/"device":"cpu"/"device":"tpu"/' config-device-unknown
edit 's/^{/{"surprise":1,/' config-unknown-key
edit 's/"model":/"modell":/' config-model-missing
edit 's/"task":"modadd"/"task":"modadd","task":"copy"/' config-duplicate-key
edit 's/"clip":[0-9.e-]*/"clip":1e999/' config-clip-infinite

# --- arch: malformed ---------------------------------------------------------

v=$a/valid-mlp-layer-score-per-head
reheader "$v" 's/tapir.arch.v1/tapir.arch.v0/' "$a/format-wrong"
reheader "$v" 's/\\"layers\\":2/\\"layers\\":-1/' "$a/layers-negative"
reheader "$v" 's/\\"layers\\":2/\\"layers\\":1/' "$a/layers-fewer"
reheader "$v" 's/\\"heads\\":2/\\"heads\\":0/' "$a/heads-zero"
reheader "$v" 's/\\"heads\\":2/\\"heads\\":9223372036854775807/' "$a/heads-huge"
reheader "$v" 's/\\"knots\\":9/\\"knots\\":1000000000/' "$a/knots-huge"
reheader "$v" 's/\\"knots\\":9/\\"knots\\":1/' "$a/knots-one"
reheader "$v" 's/\\"rows\\":2/\\"rows\\":4611686018427387904/' "$a/rows-overflow"
reheader "$v" 's/\\"layer\\":0/\\"layer\\":7/' "$a/layer-out-of-range"
reheader "$v" 's/\\"slot\\":\\"mlp\\"/\\"slot\\":\\"attn\\"/' "$a/slot-swapped"
reheader "$v" 's/score-spline/softmax/' "$a/kernel-softmax"
reheader "$v" 's/"arch":"{/"arch":"{\\"functions\\":[],/' "$a/functions-twice"
reheader "$v" 's/"arch":"[^"]*\(\\"[^"]*\)*"/"arch":"{"/' "$a/arch-not-json"
reheader "$v" 's/\\"functions\\":\[/\\"functions\\":[{\\"name\\":\\"x\\"},/' "$a/function-incomplete"
reheader "$v" 's/blocks.0.mlp.act.values/blocks.9.mlp.act.values/g' "$a/function-renamed"
poke_data "$v" 0 '\x00\x00\xc0\x7f' "$a/values-nan"
poke_data "$v" 4 '\x00\x00\x80\xff' "$a/values-minus-inf"
head -c 300 "$v" >"$a/truncated"
# Descriptions that contradict themselves: a name twice, a layer twice, more
# layers than per-layer functions, per-head rows the description does not
# declare, per-head rows for a kernel that takes none, a shared function
# given a layer.
reheader "$v" 's/blocks.1.mlp.act.values\\"/blocks.0.mlp.act.values\\"/' "$a/function-name-twice"
reheader "$v" 's/\\"layer\\":1,/\\"layer\\":0,/' "$a/layer-twice"
reheader "$v" 's/\\"layers\\":2/\\"layers\\":3/' "$a/layers-more"
reheader "$v" 's/\\"per_head\\":true/\\"per_head\\":false/' "$a/per-head-dropped"
reheader "$v" 's/score-spline/feature-spline/' "$a/per-head-feature-kernel"
reheader "$a/valid-feature-shared" 's/\\"layer\\":-1/\\"layer\\":0/' "$a/shared-with-layer"
cp "$s/one-f32" "$a/not-an-architecture"

# --- resume: malformed -------------------------------------------------------

v=$r/valid
reheader "$v" 's/"step":"[0-9]*"/"step":"-1"/' "$r/step-negative"
reheader "$v" 's/"step":"[0-9]*"/"step":"99999999999999999999"/' "$r/step-overflow"
reheader "$v" 's/"step":"[0-9]*"/"step":"1000"/' "$r/step-beyond-end"
reheader "$v" 's/"step":"[0-9]*"/"step":"two"/' "$r/step-word"
reheader "$v" 's/"optimizer_steps":"[0-9]*"/"optimizer_steps":"-9223372036854775808"/' "$r/optimizer-steps-min"
reheader "$v" 's/"wall_s":"[^"]*"/"wall_s":"nan"/' "$r/wall-nan"
reheader "$v" 's/"format":"[^"]*"/"format":"tapir.resume.v0"/' "$r/format-wrong"
reheader "$v" 's/"__metadata__":{/"__metadata__":{"extra":"1",/' "$r/metadata-extra"
reheader "$v" 's/param\.tok_emb/param.tok_embX/g' "$r/param-renamed"
reheader "$v" 's/"data_rng"/"data_rng2"/' "$r/rng-renamed"
reheader "$v" 's/"shape":\[13,8\]/"shape":[8,13]/' "$r/shape-transposed"
reheader "$v" 's/"F32"/"I32"/' "$r/dtype-i32"
poke_data "$v" 0 '\x00\x00\xc0\x7f' "$r/value-nan"
poke_data "$v" 64 '\x00\x00\x80\x7f' "$r/value-inf"
poke_data "$v" 0 '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' "$r/values-bits-set"
# The sampling RNG's state: its format version word, and buffer_pos (word 7).
rng=$(header_of "$v" | grep -o '"data_rng":{[^}]*}' | grep -o 'offsets":\[[0-9]*' | grep -o '[0-9]*$')
poke_data "$v" "$rng" '\x00\x00\x00\x00' "$r/rng-version-zero"
poke_data "$v" $((rng + 28)) '\x09\x00\x00\x00' "$r/rng-buffer-pos-9"
head -c 100 "$v" >"$r/truncated-header"
head -c $(($(stat -c %s "$v") - 3)) "$v" >"$r/truncated-data"
cp "$work/run/checkpoint.safetensors" "$r/a-checkpoint"
cp "$work/shared/resume.safetensors" "$r/other-run"
cp "$s/one-f32" "$r/foreign-tensor"
: >"$r/empty"

# States no run reaches: an RNG of another seed or stream, an optimizer
# step count other than the step, a negative second moment.
poke_word "$v" data_rng 1 '\x07\x00\x00\x00' "$r/rng-other-seed"
poke_word "$v" data_rng 3 '\x02\x00\x00\x00' "$r/rng-other-stream"
reheader "$v" 's/"optimizer_steps":"[0-9]*"/"optimizer_steps":"3"/' "$r/optimizer-steps-fewer"
reheader "$v" 's/"optimizer_steps":"[0-9]*"/"optimizer_steps":"5"/' "$r/optimizer-steps-more"
poke_word "$v" optim.adam.v.head.weight 0 '\x00\x00\x80\xbf' "$r/adam-v-negative"

# --- constrained_resume: a constrained run's resume file ---------------------

k=$corpus/constrained_resume
v=$k/valid
cp "$work/constrained/resume.safetensors" "$v"
# Multipliers and slacks below 0 (F64 -1.0 in element 0), a NaN multiplier.
poke_word "$v" constraint.lambda 0 '\x00\x00\x00\x00\x00\x00\xf0\xbf' "$k/lambda-negative"
poke_word "$v" constraint.lambda 0 '\x00\x00\x00\x00\x00\x00\xf8\x7f' "$k/lambda-nan"
poke_word "$v" constraint.slack 0 '\x00\x00\x00\x00\x00\x00\xf0\xbf' "$k/slack-negative"
poke_word "$v" constraint.dual_rng 3 '\x01\x00\x00\x00' "$k/dual-rng-other-stream"
reheader "$v" 's/"constraint_pending_steps":"[0-9]*"/"constraint_pending_steps":"0"/' "$k/pending-steps-wrong"
reheader "$v" 's/"constraint_pending_steps":"[0-9]*"/"constraint_pending_steps":"-1"/' "$k/pending-steps-negative"
reheader "$v" 's/"constraint_pending_steps"/"constraint_pending_stepz"/' "$k/pending-steps-missing"
reheader "$v" 's/"optimizer_steps":"[0-9]*"/"optimizer_steps":"3"/' "$k/optimizer-steps-fewer"
reheader "$v" 's/"constraint.slack"/"constraint.slacx"/' "$k/slack-renamed"
cp "$work/run/resume.safetensors" "$k/an-unconstrained-resume"

# --- search_resume: a search's resume file, valid and malformed -------------

# The search the search_resume harness makes for itself
# (tests/fuzz/search_resume_fuzz.cpp); it ends near chance and says so.
"$tapir" search "${tiny[@]}" --layers 1 --mlp-act spline --spline-knots 5 --models 1 --stagger \
  --steps 4 --search-steps 8 --out "$work/search" 2>/dev/null
q=$corpus/search_resume
v=$q/valid
cp "$work/search/resume.safetensors" "$v"
reheader "$v" 's/"format":"[^"]*"/"format":"tapir.resume.v1"/' "$q/format-of-a-run"
reheader "$v" 's/"step":"[0-9]*"/"step":"99"/' "$q/step-beyond-end"
reheader "$v" 's/"model-0\/step":"[0-9]*"/"model-0\/step":"3"/' "$q/model-step-wrong"
reheader "$v" 's/"model-0\/generation":"[0-9]*"/"model-0\/generation":"9"/' "$q/generation-beyond"
reheader "$v" 's/"model-0\/start":"[0-9]*"/"model-0\/start":"-4"/' "$q/start-negative"
reheader "$v" 's/"untrained_accuracy":"[^"]*"/"untrained_accuracy":"1.5"/' "$q/accuracy-above-one"
reheader "$v" 's/model-0\/arch_rng/model-0\/arch_rnf/' "$q/rng-renamed"
reheader "$v" 's/"shape":\[5\]/"shape":[6]/' "$q/function-shape"
reheader "$v" 's/"model-0\/optimizer_steps":"[0-9]*"/"model-0\/optimizer_steps":"1"/' "$q/model-optimizer-steps-wrong"
reheader "$v" 's/"optimizer_steps":"[0-9]*"/"optimizer_steps":"99"/' "$q/optimizer-steps-beyond"
poke_word "$v" model-0/arch_rng 1 '\x05\x00\x00\x00' "$q/arch-rng-other-seed"
poke_word "$v" model-0/data_rng 3 '\x02\x00\x00\x00' "$q/data-rng-other-stream"
poke_data "$v" 0 '\x00\x00\xc0\x7f' "$q/value-nan"
head -c $(($(stat -c %s "$v") - 3)) "$v" >"$q/truncated-data"
cp "$work/run/resume.safetensors" "$q/a-run-resume"
: >"$q/empty"

# --- poly: poly files, valid and malformed ----------------------------------

p=$corpus/poly
# The source's path is the temporary folder's; any name will do.
for f in layer shared; do sed -i 's|"source": ".*"|"source": "arch.safetensors"|' "$work/$f.json"; done
cp "$work/layer.json" "$p/valid-per-layer"
cp "$work/shared.json" "$p/valid-shared"
pedit() { sed -e "$1" "$work/layer.json" >"$p/$2"; }
pedit 's/"degree": 3/"degree": 2/' degree-fewer
pedit 's/"degree": 3/"degree": 4/' degree-more
pedit 's/"degree": 3/"degree": -1/' degree-negative
pedit 's/"degree": 3/"degree": 9223372036854775807/' degree-huge
pedit '0,/"lo": [-0-9.e]*/s//"lo": -1e308/; 0,/"hi": [-0-9.e]*/s//"hi": 1e308/' range-too-wide
pedit '0,/"lo": [-0-9.e]*/s//"lo": 0.0/; 0,/"hi": [-0-9.e]*/s//"hi": 1e-320/' range-too-narrow
pedit '0,/"hi": [-0-9.e]*/s//"hi": -3.0/' range-reversed
pedit '0,/"lo": [-0-9.e]*/s//"lo": 1e999/' range-infinite
pedit '0,/"max_abs_error": [-0-9.e]*/s//"max_abs_error": -1.0/' error-negative
pedit '0,/"layer": 0/s//"layer": 1/' layer-out-of-order
pedit 's/"tapir.poly.v1"/"tapir.poly.v0"/' format-wrong
printf '{"format": "tapir.poly.v1", "source": "x", "degree": 0, "functions": []}' >"$p/no-functions"
printf '{"format": "tapir.poly.v1", "source": "x", "degree": 0, "functions": [' >"$p/truncated"
: >"$p/empty"

# --- config (TOML/INI): malformed and unusual --------------------------------

m=$(cat "$c/valid-modadd")
medit() { printf '%s\n' "$m" | sed -e "$1" >"$c/$2"; }
: >"$c/empty"
printf '# only a comment\n' >"$c/comment-only"
printf '[train]\n' >"$c/section-only"
printf 'task = "modadd"\nsteps = 3\n' >"$c/no-section"
printf '[bench]\nsteps = 3\n' >"$c/other-section"
printf '[train.sub]\nsteps = 3\n' >"$c/nested-section"
printf '[train\nsteps = 3\n' >"$c/section-unclosed"
printf '[train]\nsteps = 3\nsteps = 4\n' >"$c/duplicate-key"
printf '[train]\nnosuch = 1\n' >"$c/unknown-key"
printf '[train]\nsteps = 99999999999999999999999\n' >"$c/steps-overflow"
printf '[train]\nsteps = -1\nbatch = 0\n' >"$c/negative"
printf '[train]\nlr = nan\nclip = inf\n' >"$c/non-finite"
printf '[train]\nlr = "fast"\n' >"$c/wrong-type"
printf '[train]\nsteps = [1, 2]\n' >"$c/list-for-scalar"
printf '[train]\nopt = [["p=3"]]\n' >"$c/nested-list"
printf '[train]\nopt = ["p=abc", "=", "p"]\n' >"$c/task-options-bad"
printf '[train]\ntask = "nosuch"\n' >"$c/task-unknown"
printf '[train]\ntask = "modadd\n' >"$c/string-unterminated"
printf '[train]\ntask = "mod\xffadd"\n' >"$c/invalid-utf8"
printf '[train]\nwidth = 96\nheads = 7\n' >"$c/heads-not-dividing"
printf '[train]\nspline-knots = 1000000000\nmlp-act = "spline"\n' >"$c/knots-huge"
printf '[train]\nhelp = true\n' >"$c/help"
printf '[train]\nversion = true\n' >"$c/version"
printf '[train]\nconfig = "/dev/null"\n' >"$c/config-in-config"
printf '[train]\nresume = "/nonexistent"\nsteps = 5\n' >"$c/resume"
printf '[train]\narch = "/nonexistent.safetensors"\n' >"$c/arch-missing"
printf '[train]\nconstraint = "layer"\nalpha = "0.1,0.2,x"\n' >"$c/constraint-alpha-bad"
printf '[train]\nsteps = 3 # comment\n\xef\xbb\xbf\n  = 3\n' >"$c/odd-lines"
printf 'train.steps = 3\ntrain.width = 8\n' >"$c/dotted-keys"
printf '[train]\n%s\n' "$(head -c 4000 /dev/zero | tr '\0' 'x')" >"$c/long-line"
medit 's/width = 128/width = 0x80/' modadd-hex-width
medit 's/steps = 6000/steps = 6e3/' modadd-float-steps
medit 's/\[train\]/[TRAIN]/' modadd-upper-section
medit 's/ = / : /' modadd-colon

echo "corpus: $(find "$corpus" -type f | wc -l) files, $(du -sb "$corpus" | cut -f1) bytes"
find "$corpus" -type f -size +16k -printf 'too big: %p (%s bytes)\n'
