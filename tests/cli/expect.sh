# Sourced by the CLI test scripts (tests/cli, tests/quantize): a pass/fail counter and `expect`.
# The sourcing script sets $work (a scratch folder) before calling expect.
passed=0
failed=0

expect() {  # expect NAME EXIT_CODE TEXT -- command...   (TEXT must appear in stdout or stderr)
    local name=$1 code=$2 text=$3
    shift 4
    "$@" >"$work/out" 2>"$work/err"
    local got=$?
    if [ "$got" -eq "$code" ] && { [ -z "$text" ] || grep -qF -- "$text" "$work/err" "$work/out"; }; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $name: exit $got (want $code), expected text '$text'"
        head -c 600 "$work/err" "$work/out"
    fi
}
