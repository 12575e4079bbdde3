#!/bin/sh
# embed.sh NAME FILE - print a C file defining `const char NAME[]` holding FILE.
# Used to compile the Crisp prelude into the binary without extra tools.
name=$1
file=$2
printf '/* generated from %s by scripts/embed.sh - do not edit */\n' "$file"
printf 'const char %s[] =\n    ""\n' "$name"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$file"
printf ';\n'
