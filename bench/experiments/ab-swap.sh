# Sourced by ab-libs.sh and ab-gamg.sh: puts build A (the pack's lib/libsfpc.so) or build B in lib/libsfpc.so, where
# every program of the pack loads it from, and puts A back at the end.
#   ab_begin B.so; ab_use A; ...; ab_use B; ...; ab_end
ab_begin() {
  ab_other=$(readlink -f "$1") ab_lib=$PWD/lib/libsfpc.so
  cp "$ab_lib" "$ab_lib.A"
  trap ab_end EXIT
}
ab_use() {
  if [ "$1" = A ]; then cp "$ab_lib.A" "$ab_lib"; else cp "$ab_other" "$ab_lib"; fi
}
ab_end() {
  [ -f "$ab_lib.A" ] && cp "$ab_lib.A" "$ab_lib"
  return 0
}
