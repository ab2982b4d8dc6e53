#!/bin/sh
# Writes the ACL file Redis loads from the template users.acl: comment and blank lines left out, each
# ${VARIABLE} replaced by that environment variable. A password must be a letter, then at least 15
# letters, digits, '-' or '_' (it also goes into a service's REDIS_URL unescaped); an unset or
# malformed one stops here, naming it, rather than leaving Redis with a guessable password.
#   usage: render-acl.sh TEMPLATE OUTPUT
set -eu
template=$1
output=$2
umask 077
awk '
  /^[[:space:]]*(#|$)/ { next }
  {
    line = $0
    while (match(line, /\$\{[A-Za-z0-9_]+\}/)) {
      name = substr(line, RSTART + 2, RLENGTH - 3)
      value = ENVIRON[name]
      if (length(value) < 16 || value !~ /^[A-Za-z][A-Za-z0-9_-]*$/) {
        printf "render-acl: %s must be a letter, then at least 15 letters, digits, - or _\n", name > "/dev/stderr"
        exit 1
      }
      line = substr(line, 1, RSTART - 1) value substr(line, RSTART + RLENGTH)
    }
    print line
  }
' "$template" > "$output.tmp" || { rm -f "$output.tmp"; exit 1; }
mv "$output.tmp" "$output"
