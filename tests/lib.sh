# SPDX-License-Identifier: GPL-2.0
# tests/lib.sh: the old place of tests/lib/lib.sh, for bench/ until it has its own library.
. "$(dirname "${BASH_SOURCE[0]}")/lib/lib.sh"
