#!/bin/sh
# Builds examples/csharp with Mono's compiler and runs it from the
# repository's root. The library goes beside the program, as a native
# plugin sits beside a Unity build's assemblies: TENTEN_LIB names it
# (default target/release/libtenten_ffi.so); TENTEN_OUT is where to build
# (default target/examples/csharp).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${TENTEN_LIB:-$root/target/release/libtenten_ffi.so}
out=${TENTEN_OUT:-$root/target/examples/csharp}
if [ ! -f "$lib" ]; then
    echo "no tenten library at $lib: run 'cargo build --release -p tenten-ffi' or set TENTEN_LIB" >&2
    exit 1
fi
mkdir -p "$out"
mcs -nologo -warnaserror -out:"$out/Greedy.exe" "$root"/examples/csharp/*.cs
cp "$lib" "$out/libtenten_ffi.so"
cd "$root"
exec mono "$out/Greedy.exe" "$@"
