# SPDX-License-Identifier: GPL-2.0
# tests/lib/disk-script.sh: the start of every tests/disks/NAME.sh,
# sourced as its first command: TOP, the libraries a disk script uses,
# and OUT, the directory it writes its images into ($1).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/lib.sh"
. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/disks.sh"
# shellcheck disable=SC2034 # the disk script writes into it
OUT=$1
