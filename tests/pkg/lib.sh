# SPDX-License-Identifier: GPL-2.0-or-later
# tests/pkg/lib.sh - helpers of the packaging checks (sourced)

# the newest /lib/modules/<ver> with headers, as the Makefile picks it
target_kver() {
	local d
	for d in $(ls -1 /lib/modules 2> /dev/null | sort -rV); do
		[ -d "/lib/modules/$d/build" ] && { echo "$d"; return; }
	done
}

# PACKAGE_VERSION of a dkms.conf
dkms_conf_version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$1"
}

# copy_source_tree FROM TO: the files git tracks or would add (a fresh
# clone plus uncommitted work), none of the build products
copy_source_tree() {
	mkdir -p "$2"
	git -C "$1" ls-files -z --cached --others --exclude-standard |
		(cd "$1" && xargs -0 cp --parents -t "$2" 2> /dev/null)
	return 0
}
