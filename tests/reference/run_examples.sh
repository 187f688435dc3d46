#!/usr/bin/env bash
# Runs every bundled example through FuserLab's CPU reference executor and saves
# its inputs and outputs for check_against_torch.py:
#     run_examples.sh FUSERLAB_CLI DATA_DIR [SEED]
# writes DATA_DIR/CASE/{in,out}/ and DATA_DIR/CASE.log, one case per example
# (two_fusions: one per fusion definition). Runs the cases in parallel.
set -u
cli=$(realpath "$1")
data=$2
seed=${3:-1}
here=$(dirname "$(realpath "$0")")
examples=$(realpath "$here/../../resources/examples")
mkdir -p "$data"

# CASE SCRIPT [extra CLI arguments]
cases() {
  for script in "$examples"/*.py; do
    name=$(basename "$script" .py)
    case $name in
      two_fusions)
        # --fusion picks a definition but the script's last inputs block stays,
        # so the forward fusion gets its one input from --inputs.
        echo "$name.nvfuser_fusion_id0 $script --fusion nvfuser_fusion_id0 --inputs 1024x4096:bf16"
        echo "$name.nvfuser_fusion_id1 $script --fusion nvfuser_fusion_id1" ;;
      batch_norm_outer)
        # The script's weight and bias are torch.ones / torch.zeros: an oracle
        # checked on those cannot see a swapped or ignored affine; use randn.
        echo "$name $script --inputs 16384x128:bf16,128:f32,128:f32" ;;
      *)
        echo "$name $script" ;;
    esac
  done
}

run_case() {
  local name=$1 script=$2
  shift 2
  "$cli" run "$script" --seed "$seed" "$@" \
    --save-inputs "$data/$name/in" --save-outputs "$data/$name/out" \
    >"$data/$name.log" 2>&1 || echo "$name: fuserlab-cli exited $?" >&2
}
export -f run_case
export cli data seed

cases | xargs -P "$(nproc)" -L 1 bash -c 'run_case "$@"' _
