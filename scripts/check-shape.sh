#!/usr/bin/env bash
# Checks that every problem crate keeps the crate template (docs/architecture.md, "The crate
# template"), from the files alone (no cargo: it takes well under a second). Prints one line
# per violation, `crate: rule: detail`, and exits 1 when there is any.
#
#   scripts/check-shape.sh                 the seven problem crates
#   scripts/check-shape.sh queens graph    only these (names without `thicket-`)
#
# The rules:
#   required      src/lib.rs, strategy.rs, run.rs, kernels.rs and verify.rs exist
#   mod-rs        one module style: `name.rs` beside a `name/` folder, never `mod.rs` (src/, tests/)
#   long-file     no file of library code over 600 lines (test modules in src/, `tests.rs` and
#                 `*_tests.rs`, are test code and not counted)
#   long-run      run.rs, the front door, stays short: at most 300 lines
#   gpu-kernel    each kernels/<algo>.cu has its host src/gpu/<algo>.rs beside it (a variant
#                 kernels/<algo>_<variant>.cu may share src/gpu/<algo>.rs; `.cuh` headers are
#                 shared and not paired); src/gpu/ may also hold host code several kernels
#                 share (device buffers, a device's context)
#   strategy-leaf strategy.rs imports nothing from the front door (`crate::run`)
#   root-import   inside the crate, modules import from the defining module, not through the
#                 crate root: `use crate::Foo` where lib.rs neither declares a module `Foo` nor
#                 defines `Foo` itself (only re-exports it). Best effort: it reads `use`
#                 declarations as text.
#   test-binaries at most one integration-test binary (tests/*.rs or tests/*/main.rs), its
#                 modules in a folder beside it
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

max_library_lines=600
max_run_lines=300
crates=("$@")
((${#crates[@]} > 0)) || crates=(queens perm atsp lattice graph flow schedule)

violations=0
violation() {
    echo "$1: $2: $3"
    violations=$((violations + 1))
}

for name in "${crates[@]}"; do
    crate="thicket-$name"
    dir="crates/$crate"
    if [[ ! -d $dir ]]; then
        violation "$crate" missing "no folder $dir"
        continue
    fi
    src="$dir/src"

    for file in lib.rs strategy.rs run.rs kernels.rs verify.rs; do
        [[ -f $src/$file ]] || violation "$crate" required "src/$file is missing"
    done

    while IFS= read -r file; do
        violation "$crate" mod-rs "${file#"$dir"/} (write it as the folder's name.rs)"
    done < <(find "$src" "$dir/tests" -name mod.rs 2>/dev/null | sort)

    while IFS= read -r file; do
        case "${file##*/}" in
            tests.rs | *_tests.rs) continue ;;
        esac
        lines=$(wc -l <"$file")
        ((lines > max_library_lines)) &&
            violation "$crate" long-file "${file#"$dir"/} has $lines lines (at most $max_library_lines)"
    done < <(find "$src" -name '*.rs' | sort)

    if [[ -f $src/run.rs ]]; then
        lines=$(wc -l <"$src/run.rs")
        ((lines > max_run_lines)) &&
            violation "$crate" long-run "src/run.rs has $lines lines (at most $max_run_lines)"
    fi

    # Each host module of src/gpu/ against the kernel sources.
    hosts=()
    if [[ -d $src/gpu ]]; then
        for file in "$src"/gpu/*.rs; do
            [[ -e $file ]] || continue
            algo="${file##*/}"
            algo="${algo%.rs}"
            [[ $algo == mod ]] && continue
            hosts+=("$algo")
        done
    fi
    for file in "$dir"/kernels/*.cu; do
        [[ -e $file ]] || continue
        algo="${file##*/}"
        algo="${algo%.cu}"
        paired=0
        for host in "${hosts[@]}"; do
            [[ $algo == "$host" || $algo == "${host}_"* ]] && paired=1
        done
        ((paired == 1)) || violation "$crate" gpu-kernel "kernels/$algo.cu has no src/gpu/$algo.rs"
    done

    if [[ -f $src/strategy.rs ]] &&
        grep -nE '\b(crate|super)::run\b|\bcrate::\{[^}]*\brun\b' "$src/strategy.rs" >/dev/null; then
        violation "$crate" strategy-leaf "src/strategy.rs imports from crate::run"
    fi

    # The names lib.rs declares as modules or defines itself; any other `use crate::Name` goes
    # through a re-export.
    if [[ -f $src/lib.rs ]]; then
        own=$(perl -ne '
            print "$1\n" if /^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)/;
            print "$1\n" if /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:struct|enum|union|fn|const|static|type|trait)\s+(\w+)/;
            print "$1\n" if /^\s*macro_rules!\s*(\w+)/;
        ' "$src/lib.rs" | sort -u | tr '\n' ' ')
        while IFS=: read -r file line used; do
            violation "$crate" root-import "${file#"$dir"/}:$line: crate::$used is a re-export of lib.rs (import it from its module)"
        done < <(
            find "$src" -name '*.rs' ! -path "$src/lib.rs" | sort | while IFS= read -r file; do
                # Each `use crate::...;` declaration, joined onto one line, with its line number;
                # its first segments (one, or each of a braced list's) checked against lib.rs.
                perl -e '
                    my %own = map { $_ => 1 } split " ", $ARGV[0];
                    my $file = $ARGV[1];
                    open my $fh, "<", $file or exit;
                    my ($text, $start) = ("", 0);
                    while (my $line = <$fh>) {
                        if ($text eq "" && $line =~ /^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+crate::/) {
                            ($text, $start) = ("", $.);
                        } elsif ($text eq "") {
                            next;
                        }
                        $text .= $line;
                        next unless $text =~ /;/;
                        (my $path = $text) =~ s/.*?use\s+crate:://s;
                        $path =~ s/;.*//s;
                        $path =~ s/\s+//g;
                        my @first;
                        if ($path =~ /^\{(.*)\}$/) {
                            # Top-level items of the braced list: split at depth-0 commas.
                            my ($depth, $item) = (0, "");
                            for my $c (split //, $1) {
                                $depth++ if $c eq "{";
                                $depth-- if $c eq "}";
                                if ($c eq "," && $depth == 0) { push @first, $item; $item = ""; }
                                else { $item .= $c; }
                            }
                            push @first, $item if $item ne "";
                        } else {
                            @first = ($path);
                        }
                        for my $item (@first) {
                            my ($segment) = $item =~ /^(\w+)/ or next;
                            next if $segment eq "self" || $own{$segment};
                            print "$file:$start:$segment\n";
                        }
                        $text = "";
                    }
                ' "$own" "$file"
            done
        )
    fi

    if [[ -d $dir/tests ]]; then
        binaries=()
        for file in "$dir"/tests/*.rs "$dir"/tests/*/main.rs; do
            [[ -e $file ]] && binaries+=("${file#"$dir"/}")
        done
        ((${#binaries[@]} > 1)) &&
            violation "$crate" test-binaries "${#binaries[@]} integration-test binaries (at most 1): ${binaries[*]}"
    fi
done

if ((violations > 0)); then
    echo "check-shape: $violations violation(s) of the crate template (docs/architecture.md)" >&2
    exit 1
fi
echo "check-shape: every crate keeps the template"
