#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rxe-vm.sh: runs commands against a real verbs stack (soft-RoCE, rdma_rxe) in qemu guests, for the jDAT verbs
# provider on machines without RDMA hardware. See README.md next to this file for what it does and why.
#
#   rxe-vm.sh [options]                 one guest: rxe0 on dummy0 (192.0.2.1), runs --cmd
#   rxe-vm.sh --pair [options]          two guests on one virtual wire: a (192.0.2.1) runs --cmd-a,
#                                       b (192.0.2.2) runs --cmd-b
#   rxe-vm.sh --faults [options]        the pair running the fault suite: a is the victim, b the survivor
#   rxe-vm.sh --pair --interop [opts]   the pair running OFA's C uDAPL against jDAT (interop.sh): INTEROP lines
#
# Exit status: 0 when every guest command exited 0; 1 when one failed, crashed (twice), timed out or its guest
# did not come up; 2 for bad usage or a host that lacks what the harness needs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
ROOT_DIR=$(cd "$HERE/../../../.." && pwd)
readonly ROOT_DIR
readonly PROG=${0##*/}
readonly GUEST_INIT=$HERE/guest-init.sh
readonly MULTIARCH=x86_64-linux-gnu
readonly HOST_PACKAGES=(qemu-system-x86 kmod cpio busybox-static rdma-core ibverbs-providers libibverbs1 librdmacm1
    iproute2)
# --dapl: OFA's C uDAPL 2.0 (libdat2 and its providers) and its test programs, carried into the guest.
readonly DAPL_PACKAGES=(libdapl2 dapl2-utils)
readonly DAPL_PROVIDERS=(libdaplofa.so.2 libdaploscm.so.2 libdaploucm.so.2)
readonly DAPL_TOOLS=(dtest dtestsrq dtestx dtestcm dapltest)
# --ofi: libfabric (the ofi provider's library; its verbs provider reaches rxe0 through libibverbs and librdmacm).
readonly OFI_PACKAGES=(libfabric1)
# Loaded in this order (dependencies first, resolved from modules.dep). crc32_generic is listed by hand because
# rdma_rxe asks the crypto API for "crc32" at device creation, which modules.dep does not record and which
# fails with "failed to init crc32 algorithm" when nothing provides it; there is no modprobe to load it lazily.
readonly GUEST_MODULES=(crc32_generic rdma_rxe ib_uverbs rdma_ucm dummy virtio_pci virtio_net virtio-rng
    9pnet_virtio 9p)

usage() {
    cat <<EOF
Usage: $PROG [--pair] [options]

Boots Debian's stock kernel under qemu (TCG), creates the soft-RoCE device rxe0 and runs a command with the
jDAT runtime image's bin on PATH, in the output directory. Exit 0 only when every guest command exited 0.

Options:
  --image DIR        runtime image shared read-only into the guest (default: jlink-image/target/maven-jlink/default)
  --out DIR          read-write output directory: logs, exit codes, reports (default: dat.provider.verbs/target/rxe-vm)
  --cmd CMD          one guest: shell command to run (default: $(default_cmd vm))
  --pair             two guests joined by a qemu socket netdev on 127.0.0.1
  --cmd-a CMD        pair, guest a (192.0.2.1) (default: $(default_cmd a))
  --cmd-b CMD        pair, guest b (192.0.2.2) (default: $(default_cmd b))
  --dapl             also carry OFA's C uDAPL into the guest (libdat2, libdaplofa/-scm/-ucm, dtest, dtestsrq,
                     dtestx, dtestcm, dapltest) and give every guest a dat.conf naming its rxe0 (DAT_OVERRIDE);
                     the default --java-options then also raise dat.registry.timeout.ms to 120000; one guest's
                     default command then runs the kit on OFA's C uDAPL through the udapl bridge:
                     $(default_cmd dapl-vm)
  --ofi              also carry libfabric into the guest, so the ofi provider offers its IAs there (ofi-verbs-rxe0:
                     libfabric's verbs provider on rxe0; ofi-tcp-*: its tcp provider); the default --java-options
                     then also raise dat.registry.timeout.ms to 120000, and the default commands run the kit on
                     ofi-verbs-rxe0 (one guest: $(default_cmd ofi-vm); a pair: a runs $(default_cmd ofi-a),
                     b $(default_cmd ofi-b))
  --interop          the pair (implies --pair --dapl) running interop.sh in both guests: OFA's dtest and
                     dtestsrq against themselves (the controls), then against dat dtest and dat dtestsrq on verbs
                     both ways (and the cross-node kit verbs<->udapl when the image has udapl); the summary
                     prints INTEROP PASS|FAIL <check> per check and "N passed, M failed"
  --faults           the pair with the fault suite's commands: a runs fault-victim.sh (kill -9, link down and up,
                     dat_ia_close ABRUPT, then a plain connection), b runs $(default_cmd fault-b)
  --timeout SECONDS  hard limit for the guests, boot and a retry included (default: $DEFAULT_TIMEOUT)
  --peer-grace SECS  pair: once a guest's command failed, how long the other may still run (default: $DEFAULT_GRACE)
  --java-options S   JVM options for every java in the guest, in JDK_JAVA_OPTIONS
                     (default: $java_options_default)
  --mem MB           memory per guest (default: 2048 for one guest, 1536 each for a pair)
  --accel tcg|kvm    qemu accelerator (default: tcg; see README.md before trying kvm)
  --kernel-pkg PKG   kernel package (default: the one linux-image-amd64 depends on)
  --cache DIR        kernel and initramfs cache (default: \${XDG_CACHE_HOME:-\$HOME/.cache}/jdat-rxe-vm)
  --no-retry         do not run again after a JVM crash
  --install          apt-get install missing host packages (automatic when root and CI is set)
  --prepare-only     fetch the kernel and build the initramfs, then exit
  -h, --help         this text

In the guest: cwd is the output directory (mounted at the same path as on the host); DAT_VM_OUT, DAT_VM_ROLE,
DAT_VM_IP, DAT_VM_PEER and DAT_VM_GID_INDEX (of the RoCE v2 GID of DAT_VM_IP) are set; JDK_JAVA_OPTIONS points
-XX:ErrorFile at the guest's own directory (vm/, vm-a/ or vm-b/).
EOF
}

readonly DEFAULT_TIMEOUT=2400
# TCG runs the guest 10 to 50 times slower than the host: the TCK's 10 s wait for an expected event is too short.
readonly java_options_default=-Ddat.tck.event.timeout.ms=60000
readonly DEFAULT_GRACE=120

# Guest-side defaults. Single quotes on purpose: $DAT_VM_OUT is expanded in the guest, where it is the output
# directory.
# shellcheck disable=SC2016
default_cmd() {
    case $1 in
        # The campaign episode that once found a verbs defect replays first (seed, steps; see
        # VerbsEpConnection.dtoFailed), then the whole kit, its campaign from a fresh seed (printed with the result,
        # for a replay).
        vm) echo 'dat info -v && dat tck --provider verbs --strict --only required_campaign_randomSequencesAgreeWithTheModel --seed 0xec9c1700eac897fa --steps 642 --random-seconds 600 --reports "$DAT_VM_OUT/tck-reports-seeds" && dat tck --provider verbs --strict --steps 20000 --random-seconds 900 --concurrent-seconds 30 --exclude "$DAT_VM_OUT/verbs-tck-exclude.txt" --reports "$DAT_VM_OUT/tck-reports"' ;;
        a) echo 'dat tck-peer --provider verbs --conn-qual 7471 --timeout 1800' ;;
        b) echo 'dat tck --provider verbs --strict --peer 192.0.2.1:7471 --exclude "$DAT_VM_OUT/verbs-tck-exclude.txt" --reports "$DAT_VM_OUT/tck-reports-b"' ;;
        fault-a) echo 'sh "$DAT_VM_OUT/fault-victim.sh"' ;;
        interop) echo 'sh "$DAT_VM_OUT/interop.sh"' ;;
        # --ofi: the kit on libfabric's verbs provider over rxe0 (the ofi provider's IA ofi-verbs-rxe0), not strict:
        # SRQ is denied there, so its rules skip; the cross-node rules against a peer on the same IA in guest a.
        ofi-vm) echo 'dat info -v && dat tck --ia ofi-verbs-rxe0 --steps 20000 --random-seconds 300 --concurrent-seconds 20 --exclude "$DAT_VM_OUT/ofi-verbs-tck-exclude.txt" --reports "$DAT_VM_OUT/tck-reports"' ;;
        ofi-a) echo 'dat tck-peer --ia ofi-verbs-rxe0 --conn-qual 7471 --timeout 1800' ;;
        ofi-b) echo 'dat tck --ia ofi-verbs-rxe0 --peer 192.0.2.1:7471 --random-seconds 0 --concurrent-seconds 0 --exclude "$DAT_VM_OUT/ofi-verbs-tck-exclude.txt" --reports "$DAT_VM_OUT/tck-reports-b"' ;;
        # --dapl alone: the kit on OFA's C uDAPL through the udapl bridge (IA ofa-v2-cma-roe, libdaplofa on rxe0),
        # not strict (OFA denies SRQ and receive info); OFA's own failures, each classified in
        # docs/conformance/ofa-udapl-2.1.10.md, are excluded, so any other failure is the bridge's or new.
        dapl-vm) echo 'dat info -v && dat tck --ia ofa-v2-cma-roe --steps 20000 --random-seconds 120 --concurrent-seconds 10 --exclude "$DAT_VM_OUT/udapl-tck-exclude.txt" --reports "$DAT_VM_OUT/tck-reports"' ;;
        fault-b) echo 'dat tck-fault survivor --provider verbs --peer 192.0.2.1:7472 --faults kill,link,close,none --timeout 150' ;;
    esac
}

die_usage() { echo "$PROG: $*" >&2; exit 2; }
die() { echo "$PROG: $*" >&2; exit 1; }

t0=$EPOCHREALTIME

# Scratch directories and qemu pid files of this run; whatever is left of them goes when the script ends, also
# on an error or Ctrl-C.
scratch=()
qemu_pids=()
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
    local p
    for p in "${qemu_pids[@]}"; do
        if [[ -f $p ]]; then
            kill "$(cat "$p")" 2>/dev/null || true
        fi
    done
    [[ ${#scratch[@]} -eq 0 ]] || rm -rf "${scratch[@]}"
}
trap cleanup EXIT

# A signal (Ctrl-C, or CI's outer timeout) ends the run: the EXIT trap then stops the guests.
trap 'echo; say "interrupted: stopping the guests"; exit 130' INT TERM

# Elapsed seconds since $1 (an $EPOCHREALTIME), one decimal.
since() {
    local now=${EPOCHREALTIME/./} start=${1/./}
    local tenths=$(((now - start) / 100000))
    printf '%d.%d' $((tenths / 10)) $((tenths % 10))
}
say() { printf '[%s %6ss] %s\n' "$PROG" "$(since "$t0")" "$*"; }

# ------------------------------------------------------------------------------------------------ options
image=$ROOT_DIR/jlink-image/target/maven-jlink/default
out=$ROOT_DIR/dat.provider.verbs/target/rxe-vm
cache=${XDG_CACHE_HOME:-$HOME/.cache}/jdat-rxe-vm
pair=false
faults=false
dapl=false
ofi=false
interop=false
cmd_vm='' cmd_a='' cmd_b=''
cmd_given=false
timeout_s=$DEFAULT_TIMEOUT
grace_s=$DEFAULT_GRACE
java_options=$java_options_default
java_options_given=false
mem=
accel=tcg
kernel_pkg=
retry=true
install=false
prepare_only=false

need_arg() { [[ $# -ge 2 ]] || die_usage "$1 needs a value"; }
whole_seconds() {
    [[ $2 =~ ^[1-9][0-9]*$ ]] || die_usage "$1 needs a whole number of seconds greater than 0, got '$2'"
}
while [[ $# -gt 0 ]]; do
    case $1 in
        --image) need_arg "$@"; image=$2; shift 2 ;;
        --out) need_arg "$@"; out=$2; shift 2 ;;
        --cache) need_arg "$@"; cache=$2; shift 2 ;;
        --pair) pair=true; shift ;;
        --faults) pair=true; faults=true; shift ;;
        --interop) pair=true; dapl=true; interop=true; shift ;;
        --dapl) dapl=true; shift ;;
        --ofi) ofi=true; shift ;;
        --cmd) need_arg "$@"; cmd_vm=$2; cmd_given=true; shift 2 ;;
        --cmd-a) need_arg "$@"; cmd_a=$2; shift 2 ;;
        --cmd-b) need_arg "$@"; cmd_b=$2; shift 2 ;;
        --timeout) need_arg "$@"; whole_seconds "$1" "$2"; timeout_s=$2; shift 2 ;;
        --peer-grace) need_arg "$@"; whole_seconds "$1" "$2"; grace_s=$2; shift 2 ;;
        --java-options) need_arg "$@"; java_options=$2; java_options_given=true; shift 2 ;;
        --mem)
            need_arg "$@"
            [[ $2 =~ ^[0-9]+$ && $2 -ge 512 ]] || die_usage "--mem needs a size in MiB of at least 512, got '$2'"
            mem=$2; shift 2 ;;
        --accel)
            need_arg "$@"
            [[ $2 == tcg || $2 == kvm ]] || die_usage "--accel is tcg or kvm, got '$2'"
            accel=$2; shift 2 ;;
        --kernel-pkg)
            need_arg "$@"
            [[ $2 =~ ^linux-image-[0-9][A-Za-z0-9.+~-]*$ ]] \
                || die_usage "--kernel-pkg needs a versioned package such as linux-image-6.1.0-56-amd64, got '$2'"
            kernel_pkg=$2; shift 2 ;;
        --no-retry) retry=false; shift ;;
        --install) install=true; shift ;;
        --prepare-only) prepare_only=true; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die_usage "unknown argument '$1' (see --help)" ;;
    esac
done
if $pair; then
    $cmd_given && die_usage "--cmd is for one guest; with --pair use --cmd-a and --cmd-b"
    roles=(a b)
    : "${mem:=1536}"
else
    [[ -n $cmd_a || -n $cmd_b ]] && die_usage "--cmd-a and --cmd-b need --pair"
    roles=(vm)
    : "${mem:=2048}"
fi
$cmd_given && [[ -z ${cmd_vm//[[:space:]]/} ]] && die_usage "--cmd is empty"
# The udapl provider's info() opens every dat.conf IA through libdaplofa, which under TCG can take longer than the
# registry's 10 s limit for a provider call (one dat info of three in a guest reported udapl unavailable for it).
# The ofi provider's info() loads libfabric, whose psm2 and verbs providers initialise in it (about 1 s on the host,
# over 10 s in a TCG guest on a busy host: seen once, the ofi IAs then missing from the kit's registry).
if { $dapl || $ofi; } && ! $java_options_given; then
    java_options+=" -Ddat.registry.timeout.ms=120000"
fi
if $faults; then
    : "${cmd_a:=$(default_cmd fault-a)}" "${cmd_b:=$(default_cmd fault-b)}"
fi
if $interop; then
    $faults && die_usage "--interop and --faults are two different pair runs"
    : "${cmd_a:=$(default_cmd interop)}" "${cmd_b:=$(default_cmd interop)}"
fi
if $dapl && ! $pair && ! $ofi; then
    : "${cmd_vm:=$(default_cmd dapl-vm)}"
fi
if $ofi && ! $interop && ! $faults; then
    : "${cmd_vm:=$(default_cmd ofi-vm)}" "${cmd_a:=$(default_cmd ofi-a)}" "${cmd_b:=$(default_cmd ofi-b)}"
fi
: "${cmd_vm:=$(default_cmd vm)}" "${cmd_a:=$(default_cmd a)}" "${cmd_b:=$(default_cmd b)}"

[[ -x $image/bin/java ]] || die_usage "no runtime image at $image (bin/java missing): build it with
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -q -DskipTests verify   (or ./dat --version)"
image=$(cd "$image" && pwd)

# ------------------------------------------------------------------------------------------------ host packages
if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
    die_usage "needs a Debian-family host (dpkg and apt): the guest runs Debian's kernel and this host's libraries"
fi
missing=()
host_packages=("${HOST_PACKAGES[@]}")
! $dapl || host_packages+=("${DAPL_PACKAGES[@]}")
! $ofi || host_packages+=("${OFI_PACKAGES[@]}")
for p in "${host_packages[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    if [[ $(id -u) -eq 0 && -n ${CI:-} && ${CI:-} != false ]]; then install=true; fi
    $install || die_usage "missing host packages: ${missing[*]} (run with --install, or: apt-get install ${missing[*]})"
    sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    say "installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        >/dev/null
fi

# ------------------------------------------------------------------------------------------------ kernel
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
exec 8>"$cache/.lock"
# Two runs (CI and a developer, or --pair next to a single guest) may prepare the cache at once.
flock 8

if [[ -z $kernel_pkg ]]; then
    kernel_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null \
        | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
    [[ -n $kernel_pkg ]] || die_usage "apt-cache knows no linux-image-amd64 (run apt-get update, or pass --kernel-pkg)"
fi
kver=${kernel_pkg#linux-image-}
kdir=$cache/kernel-$kver

fetch_kernel() {
    local deb debs=$cache/debs
    mkdir -p "$debs"
    deb=$(find "$debs" -name "${kernel_pkg}_*_amd64.deb" | head -n 1)
    if [[ -z $deb ]]; then
        say "downloading $kernel_pkg"
        if ! (cd "$debs" && apt-get download -q "$kernel_pkg" 2>&1 | grep -v 'Download is performed unsandboxed'); then
            deb=$(find "$debs" -name "${kernel_pkg}_*_amd64.deb" | head -n 1)
            [[ -n $deb ]] || die "apt-get download $kernel_pkg failed (stale package lists? try apt-get update)"
        fi
        deb=$(find "$debs" -name "${kernel_pkg}_*_amd64.deb" | head -n 1)
        [[ -n $deb ]] || die "apt-get download $kernel_pkg left no .deb in $debs"
    fi
    find "$debs" -name '*.deb' ! -name "${kernel_pkg}_*" -mmin +1440 -delete

    say "extracting $(basename "$deb")"
    local tree
    tree=$(mktemp -d "$cache/extract.XXXXXX")
    scratch+=("$tree" "$cache/kernel-$kver.new")
    dpkg-deb -x "$deb" "$tree"
    grep -q '^CONFIG_RDMA_RXE=m' "$tree/boot/config-$kver" \
        || die "$kernel_pkg is not built with CONFIG_RDMA_RXE=m: no soft-RoCE in it"
    # The package's postinst runs depmod; nothing installed it here, so there is no modules.dep yet.
    depmod -b "$tree" "$kver"

    local moddir=$tree/lib/modules/$kver staging=$cache/kernel-$kver.new
    rm -rf "$staging"
    mkdir -p "$staging/modules"
    local -A seen=()
    local -a order=()
    add_module() {
        local line deps d
        line=$(grep -E "(^|/)$1\\.ko(\\.xz|\\.zst)?:" "$moddir/modules.dep" | head -n 1) \
            || die "module $1 is not in $kernel_pkg"
        [[ -n ${seen[${line%%:*}]:-} ]] && return 0
        read -r -a deps <<< "${line#*:}"
        # modules.dep lists the full dependency set, the one to load first last.
        local i
        for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
            d=${deps[i]##*/}
            add_module "${d%%.ko*}"
        done
        seen[${line%%:*}]=1
        order+=("${line%%:*}")
    }
    local m
    for m in "${GUEST_MODULES[@]}"; do add_module "$m"; done
    local p plain
    for p in "${order[@]}"; do
        plain=${p%.xz}
        plain=${plain%.zst}
        mkdir -p "$staging/modules/$(dirname "$plain")"
        # busybox insmod loads plain .ko files only.
        case $p in
            *.xz) xz -dc "$moddir/$p" > "$staging/modules/$plain" ;;
            *.zst) zstd -qdc "$moddir/$p" > "$staging/modules/$plain" ;;
            *) cp "$moddir/$p" "$staging/modules/$plain" ;;
        esac
        echo "$plain" >> "$staging/modules.order"
    done
    cp "$tree/boot/vmlinuz-$kver" "$staging/vmlinuz"
    rm -rf "$tree" "$kdir"
    mv "$staging" "$kdir"
}
[[ -f $kdir/vmlinuz && -f $kdir/modules.order ]] || fetch_kernel
# Other checkouts (another branch, a modified copy of this script) share the cache with their own kernel and
# initramfs, and may be about to boot them: only what nobody used for a day goes.
touch "$kdir"
find "$cache" -maxdepth 1 -name 'kernel-*' ! -name "kernel-$kver" -mmin +1440 -exec rm -rf {} +

# ------------------------------------------------------------------------------------------------ initramfs

# Libraries ELF files load, by the host path ld.so resolves them to. ldd prints the loader by path alone, and a
# "file:" header line when given several files (those lines have no leading tab).
ldd_paths() {
    { ldd "$@" 2>/dev/null || true; } | awk '/^\t/ && $2 == "=>" && $3 ~ /^\// { print $3 } /^\t\// { print $1 }'
}
rdma_bin=$(readlink -f "$(command -v rdma)")
ip_bin=$(readlink -f /usr/bin/ip 2>/dev/null || readlink -f "$(command -v ip)")
# Optional diagnostics from ibverbs-utils, copied when the host has them: ibv_devinfo (printed at set-up) and
# ibv_rc_pingpong (RC traffic between two guests without any Java, see the self-test's pair case). Likewise
# perftest's ib_send_lat and ib_write_lat, the C yardstick of bench/verbs-guests.sh; no guest suite needs them.
optional_tools=()
for t in ibv_devinfo ibv_rc_pingpong ib_send_lat ib_write_lat; do
    p=$(command -v "$t" || true)
    [[ -z $p ]] || optional_tools+=("$(readlink -f "$p")")
done
rxe_plugin=/usr/lib/$MULTIARCH/libibverbs/librxe-rdmav34.so
busybox_bin=$(readlink -f "$(command -v busybox)")
[[ -f $rxe_plugin && -f /etc/libibverbs.d/rxe.driver ]] || die_usage "no rxe plugin for libibverbs ($rxe_plugin)"
# libdat2 dlopen()s the provider a dat.conf line names (libdaplofa.so.2 ...), so ldd of dtest does not show it:
# the providers are listed by hand, their own libraries (librdmacm, libnl) come from their ldd.
dapl_files=()
if $dapl; then
    for t in "${DAPL_PROVIDERS[@]}"; do
        dapl_files+=("/usr/lib/$MULTIARCH/$t")
    done
    for t in "${DAPL_TOOLS[@]}"; do
        p=$(command -v "$t") || die_usage "--dapl: no $t on this host (package dapl2-utils)"
        dapl_files+=("$(readlink -f "$p")")
    done
    # --interop runs the C programs under stdbuf -oL (their output into a file is block-buffered otherwise).
    [[ -x /usr/bin/stdbuf && -f /usr/libexec/coreutils/libstdbuf.so ]] \
        && dapl_files+=(/usr/bin/stdbuf /usr/libexec/coreutils/libstdbuf.so)
fi
# The ofi provider looks libfabric up by its soname; its own libraries (libpsm2, libefa, libnl, ...) come from ldd.
ofi_files=()
! $ofi || ofi_files+=("/usr/lib/$MULTIARCH/libfabric.so.1")
ldd "$busybox_bin" >/dev/null 2>&1 && die_usage "$busybox_bin is dynamically linked: install busybox-static"

# What goes into the guest from the host: the userspace verbs stack, the tools, and every library the image's
# java and its native libraries load (the image itself stays on the host, shared over 9p). The JVM is not in the
# ldd output of bin/java (it is dlopen()ed): its libraries come from lib/server/libjvm.so's own ldd.
mapfile -t image_elves < <(find "$image/bin" "$image/lib" -type f \( -name '*.so' -o -perm -u+x \) | sort)
host_files=(
    "$rdma_bin" "$ip_bin" "${optional_tools[@]}" "${dapl_files[@]}" "${ofi_files[@]}" "$rxe_plugin"
    "/usr/lib/$MULTIARCH/libibverbs.so.1" "/usr/lib/$MULTIARCH/librdmacm.so.1"
    # glibc dlopen()s libgcc_s to unwind a thread that exits or is cancelled.
    "$(readlink -f /lib/$MULTIARCH/libgcc_s.so.1)"
)
mapfile -t host_libs < <(
    {
        ldd_paths "${host_files[@]}"
        ldd_paths "${image_elves[@]}" | awk -v img="$image/" 'index($0, img) != 1'
    } | sort -u)
for f in "${host_files[@]}" "${host_libs[@]}" "$busybox_bin"; do
    [[ -e $f ]] || die "host file $f is missing"
done

# The initramfs depends on this script, the guest's /init, the kernel and the host files copied into it; not on
# the image, which changes with every build but is shared, not copied.
key=$({
    cat "$0" "$GUEST_INIT"
    echo "$kver"
    stat -L -c '%n %s %Y' "${host_files[@]}" "${host_libs[@]}" "$busybox_bin" /etc/libibverbs.d/rxe.driver
} | sha256sum | cut -c1-16)
initrd=$cache/initramfs-$key.img

build_initramfs() {
    local root
    root=$(mktemp -d "$cache/rootfs.XXXXXX")
    scratch+=("$root" "$initrd.tmp")
    # Merged /usr like the host, so a library is found under /lib/... and /usr/lib/... without copies.
    mkdir -p "$root"/{bin,sbin,etc/jdat,etc/libibverbs.d,proc,sys,dev,tmp,run,root,mnt,opt}
    mkdir -p "$root"/usr/{bin,sbin,lib/$MULTIARCH,lib64}
    ln -s usr/lib "$root/lib"
    ln -s usr/lib64 "$root/lib64"
    cp "$busybox_bin" "$root/bin/busybox"
    local a f
    for a in $("$busybox_bin" --list); do
        [[ -e $root/bin/$a ]] || ln -s busybox "$root/bin/$a"
    done
    for f in "${host_files[@]}" "${host_libs[@]}"; do
        mkdir -p "$root$(dirname "$f")"
        cp -L "$f" "$root$f"
    done
    # The tools are looked up under their usual names.
    [[ $ip_bin == /usr/bin/ip ]] || ln -sf "$ip_bin" "$root/usr/bin/ip"
    [[ $rdma_bin == /usr/bin/rdma ]] || ln -sf "$rdma_bin" "$root/usr/bin/rdma"
    for f in "${optional_tools[@]}"; do
        [[ $f == /usr/bin/* ]] || ln -sf "$f" "$root/usr/bin/${f##*/}"
    done
    # libibverbs finds its provider plugins through these files, not through anything ldd can see.
    cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
    mkdir -p "$root/lib/modules/$kver"
    cp -r "$kdir/modules/." "$root/lib/modules/$kver/"
    cp "$kdir/modules.order" "$root/etc/jdat/modules.order"
    printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
    printf 'root:x:0:\n' > "$root/etc/group"
    cp "$GUEST_INIT" "$root/init"
    chmod 755 "$root/init"
    (cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$initrd.tmp"
    mv "$initrd.tmp" "$initrd"
    rm -rf "$root"
}
if [[ ! -f $initrd ]]; then
    say "building the initramfs (kernel $kver)"
    build_initramfs
    say "initramfs $(du -h "$initrd" | cut -f1): $initrd"
fi
touch "$initrd"
find "$cache" -maxdepth 1 -mmin +1440 \
    \( -name 'initramfs-*.img' -o -name 'rootfs.*' -o -name 'extract.*' \) -exec rm -rf {} +
flock -u 8

if $prepare_only; then
    say "prepared: kernel $kdir/vmlinuz, initramfs $initrd"
    exit 0
fi

# ------------------------------------------------------------------------------------------------ run
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The TCK rules the verbs provider cannot meet on RoCE, with the reasons; the default commands pass it to --exclude.
cp "$HERE/verbs-tck-exclude.txt" "$out/"
# The same for the ofi provider on libfabric's verbs provider (--ofi's default commands).
cp "$HERE/ofi-verbs-tck-exclude.txt" "$out/"
# OFA uDAPL's own failures through the udapl bridge (--dapl's default command).
cp "$HERE/udapl-tck-exclude.txt" "$out/"
# The victim node's half of the fault suite (--faults).
cp "$HERE/fault-victim.sh" "$out/"
# Both guests' script of --interop; its files from an earlier run would mix into this one's verdicts.
cp "$HERE/interop.sh" "$out/"
! $interop || rm -rf "$out/interop"
case $out/ in
    "$image"/*) die_usage "--out $out is inside the read-only image share $image" ;;
esac

declare -A cmd_of=([vm]=$cmd_vm [a]=$cmd_a [b]=$cmd_b)
declare -A ip_of=([vm]=192.0.2.1 [a]=192.0.2.1 [b]=192.0.2.2)
declare -A peer_of=([vm]='' [a]=192.0.2.2 [b]=192.0.2.1)
declare -A dir_of=([vm]=vm [a]=vm-a [b]=vm-b)
declare -A mac_of=([a]=52:54:00:da:70:0a [b]=52:54:00:da:70:0b)

# The default commands write to these; stale reports from an earlier run would mix into the summary's reading.
for r in "${roles[@]}"; do
    [[ ${cmd_of[$r]} == "$(default_cmd "$r")" || ${cmd_of[$r]} == "$(default_cmd "ofi-$r")" \
        || ${cmd_of[$r]} == "$(default_cmd "dapl-$r")" ]] || continue
    case $r in vm) rm -rf "$out/tck-reports" "$out/tck-reports-seeds" ;; b) rm -rf "$out/tck-reports-b" ;; esac
done
# One guest and a pair may share an output directory (CI runs both into the default one): each mode has its own
# guest directories, run marker and summary, and clears only those.
mode=$($pair && echo pair || echo one)
summary=$out/summary-$mode.txt
marker=$out/.run-start-$mode
for r in "${roles[@]}"; do
    rm -rf "${out:?}/${dir_of[$r]}" "$out/${dir_of[$r]}.attempt1"
done
rm -f "$summary"

if [[ $accel == kvm ]]; then
    [[ -r /dev/kvm && -w /dev/kvm ]] || die_usage "--accel kvm: /dev/kvm is not accessible"
    accel_args=(-accel kvm -cpu host)
else
    # One host thread runs every vCPU in turn (thread=single). With one host thread per vCPU (thread=multi), the
    # JVM patching a compiled method's entry while the other vCPU runs it crashed the guest's JVM (SIGSEGV or
    # SIGILL a few bytes into the method, at the patched jump) twice in two runs of the campaign: TCG does not
    # give x86's guarantees for code one vCPU modifies while another executes it.
    accel_args=(-accel "tcg,thread=single" -cpu max)
fi

# Copies a guest's console to the terminal (prefixed) and to its console.log (stamped with the host's clock).
console() {
    local role=$1 log=$2 started=$EPOCHREALTIME line
    while IFS= read -r line; do
        line="[$role $(since "$started")s] ${line%$'\r'}"
        printf '%s\n' "$line" >> "$log"
        printf '%s\n' "$line"
    done
}

# Starts one guest in the background; its qemu exit status lands in vm-<role>/qemu-status.
start_guest() {
    local role=$1 netdev_args=() net smp
    local dir=$out/${dir_of[$role]}
    mkdir -p "$dir"
    printf '%s\n' "${cmd_of[$role]}" > "$dir/cmd.sh"
    printf '%s\n' "$out" > "$dir/host-out"
    [[ -z $java_options ]] || printf '%s\n' "$java_options" > "$dir/java-options"
    if [[ $role == vm ]]; then
        net=dummy smp=2
    else
        net=virtio smp=1
        netdev_args=(-netdev "socket,id=n0,${sock_mode[$role]}=127.0.0.1:$port"
            -device "virtio-net-pci,netdev=n0,mac=${mac_of[$role]}")
    fi
    local append="console=ttyS0 quiet loglevel=3 panic=-1"
    append+=" jdat.role=$role jdat.dir=${dir_of[$role]} jdat.net=$net jdat.ip=${ip_of[$role]}"
    [[ -z ${peer_of[$role]} ]] || append+=" jdat.peer=${peer_of[$role]}"
    qemu_pids+=("$dir/qemu.pid")
    (
        set +e
        timeout -k 15 "$((deadline - SECONDS))" qemu-system-x86_64 "${accel_args[@]}" -m "$mem" -smp "$smp" \
            -nodefaults -no-user-config -display none -serial stdio -monitor none -no-reboot \
            -pidfile "$dir/qemu.pid" \
            -kernel "$kdir/vmlinuz" -initrd "$initrd" -append "$append" \
            -device virtio-rng-pci \
            -virtfs "local,path=${image//,/,,},mount_tag=image,security_model=none,readonly=on,id=image" \
            -virtfs "local,path=${out//,/,,},mount_tag=out,security_model=none,id=out" \
            "${netdev_args[@]}" < /dev/null 2>&1 | console "$role" "$dir/console.log"
        echo "${PIPESTATUS[0]}" > "$dir/qemu-status"
    ) &
}

# Classifies a finished guest: ok, failed, crashed (JVM), timeout, killed, setup or noexit.
verdict() {
    local dir=$out/${dir_of[$1]} rc
    if [[ -f $dir/exit-code ]]; then
        rc=$(cat "$dir/exit-code")
        if [[ $rc == 0 ]]; then echo ok
        elif [[ $rc == 134 || $rc == 139 ]] || compgen -G "$dir/hs_err_pid*.log" >/dev/null; then echo crashed
        else echo failed; fi
    elif [[ -f $dir/killed ]]; then echo killed
    elif [[ $(cat "$dir/qemu-status" 2>/dev/null) == 124 || $(cat "$dir/qemu-status" 2>/dev/null) == 137 ]]; then
        echo timeout
    elif [[ -f $dir/setup-failed ]]; then echo setup
    else echo noexit; fi
}

describe() {
    local role=$1 dir=$out/${dir_of[$1]} v
    v=$(verdict "$role")
    case $v in
        ok) echo "command exited 0" ;;
        failed) echo "command exited $(cat "$dir/exit-code")" ;;
        crashed)
            local hs
            hs=$(compgen -G "$dir/hs_err_pid*.log" | head -n 1 || true)
            echo "JVM crash: command exited $(cat "$dir/exit-code")${hs:+, ${hs#"$out"/}}" ;;
        timeout) echo "timed out: killed when --timeout ${timeout_s}s ran out" ;;
        killed) echo "stopped ${grace_s}s after the other guest's command failed (--peer-grace)" ;;
        setup) echo "guest set-up failed: $(cat "$dir/setup-failed")" ;;
        noexit)
            echo "guest stopped without an exit code (qemu status $(cat "$dir/qemu-status" 2>/dev/null || echo '?');" \
                "see ${dir_of[$role]}/console.log)" ;;
    esac
}

declare -A sock_mode=([a]=listen [b]=connect)
port=
run_once() {
    local r
    for r in "${roles[@]}"; do
        rm -rf "${out:?}/${dir_of[$r]}"
    done
    touch "$marker"
    if $pair; then
        # The socket netdev has no port 0: take a free one and start b only once a's qemu listens on it.
        local tries=0
        while :; do
            port=$((20000 + RANDOM % 30000))
            [[ -z $(ss -Hltn "sport = :$port") ]] && break
            ((++tries < 50)) || die "no free port on 127.0.0.1"
        done
        start_guest a
        local waited=0
        until [[ -n $(ss -Hltn "sport = :$port") ]]; do
            [[ -f $out/vm-a/qemu-status ]] && die "qemu for guest a stopped before listening on 127.0.0.1:$port"
            ((++waited < 300)) || die "qemu for guest a does not listen on 127.0.0.1:$port after 30 s"
            sleep 0.1
        done
        start_guest b
    else
        start_guest vm
    fi

    # In a pair a failing side usually leaves the other waiting for a peer that never comes: stop it after
    # --peer-grace rather than at --timeout.
    local -A stop_at=()
    local now other v
    while :; do
        local running=0
        for r in "${roles[@]}"; do
            [[ -f $out/${dir_of[$r]}/qemu-status ]] || running=$((running + 1))
        done
        ((running > 0)) || break
        if $pair; then
            now=$SECONDS
            for r in "${roles[@]}"; do
                other=$([[ $r == a ]] && echo b || echo a)
                [[ -f $out/vm-$r/qemu-status && ! -f $out/vm-$other/qemu-status ]] || continue
                v=$(verdict "$r")
                [[ $v != ok && -z ${stop_at[$other]:-} ]] || continue
                stop_at[$other]=$((now + grace_s))
                say "guest $r: $(describe "$r"); stopping guest $other in ${grace_s}s unless it ends"
            done
            for r in "${!stop_at[@]}"; do
                if ((now >= stop_at[$r])) && [[ ! -f $out/vm-$r/qemu-status && -f $out/vm-$r/qemu.pid ]]; then
                    touch "$out/vm-$r/killed"
                    kill "$(cat "$out/vm-$r/qemu.pid")" 2>/dev/null || true
                    stop_at[$r]=$((now + 3600))
                fi
            done
        fi
        sleep 1
    done
    wait
}

say "kernel $kver, accel $accel, image $image, output $out"
for r in "${roles[@]}"; do
    say "guest $r command: ${cmd_of[$r]}"
done
attempt=1
retried=
# One deadline for everything, so that a retry cannot double the time a hung guest holds CI.
deadline=$((SECONDS + timeout_s))
readonly MIN_RETRY_SECONDS=120
while :; do
    run_started=$EPOCHREALTIME
    run_once
    run_took=$(since "$run_started")
    crashed=()
    for r in "${roles[@]}"; do
        # A guest that stopped without an exit code died in emulation (a kernel panic at boot, say): retried too.
        case $(verdict "$r") in crashed | noexit) crashed+=("$r") ;; esac
    done
    if [[ ${#crashed[@]} -gt 0 && $attempt -eq 1 ]] && $retry; then
        why="attempt 1 ($run_took s) ended in a JVM crash in guest ${crashed[*]}: $(describe "${crashed[0]}")"
        if ((deadline - SECONDS < MIN_RETRY_SECONDS)); then
            retried="NOT RETRIED (only $((deadline - SECONDS)) s of --timeout left): $why"
            say "$retried"
            break
        fi
        for r in "${roles[@]}"; do
            mv "$out/${dir_of[$r]}" "$out/${dir_of[$r]}.attempt1"
            why=${why//"${dir_of[$r]}/"/"${dir_of[$r]}.attempt1/"}
        done
        retried="RETRIED: $why"
        kept=$(for r in "${roles[@]}"; do printf '%s.attempt1/ ' "${dir_of[$r]}"; done)
        say "RETRY: $why; its logs are kept in ${kept% }; running once more (attempt 2 of 2)"
        attempt=2
        continue
    fi
    break
done

# ------------------------------------------------------------------------------------------------ summary
# Sums tests/failures/errors/skipped of the <testsuite> elements in the JUnit XML files this run wrote.
tck_totals() {
    local tests=0 failures=0 skipped=0 files=0 f head attr val
    while IFS= read -r f; do
        head=$(tr '\n' ' ' < "$f" | grep -o '<testsuite [^>]*>' | head -n 1) || continue
        files=$((files + 1))
        for attr in tests failures errors skipped; do
            val=$(sed -n "s/.* $attr=\"\\([0-9]*\\)\".*/\\1/p" <<<"$head")
            case $attr in
                tests) tests=$((tests + ${val:-0})) ;;
                failures|errors) failures=$((failures + ${val:-0})) ;;
                skipped) skipped=$((skipped + ${val:-0})) ;;
            esac
        done
    done < <(find "$1" -maxdepth 1 -name '*.xml' -newer "$marker" | sort)
    ((files > 0)) && echo "$tests tests, $failures failures, $skipped skipped ($files JUnit XML files)"
}

# --interop: one line per check from interop.sh's verdict files. A check whose control (OFA's program against
# itself) failed is OFA's and counts neither way; controls are listed but not counted either.
interop_summary() {
    local checks=$out/interop/checks.txt name control rest v cv note passed=0 failed=0
    if [[ ! -f $checks ]]; then
        echo "INTEROP FAIL no checks ran (interop/checks.txt missing)"
        echo "0 passed, 1 failed"
        return 1
    fi
    while IFS='|' read -r name control rest; do
        v=$(cat "$out/interop/$name.verdict" 2>/dev/null || echo "FAIL no verdict")
        if [[ $control == - && $name == c-* ]]; then
            note=$(sort -u "$out/interop/$name.note" 2>/dev/null | paste -sd ' ' || true)
            echo "INTEROP CONTROL ${v%% *} $name${v#"${v%% *}"}${note:+ (note: $note)}"
            continue
        fi
        if [[ $control != - ]]; then
            cv=$(cat "$out/interop/$control.verdict" 2>/dev/null || echo "FAIL no verdict")
            if [[ $cv != PASS ]]; then
                echo "INTEROP OFA $name: not counted, its control $control failed (${cv#FAIL })"
                continue
            fi
        fi
        if [[ $v == PASS ]]; then
            note=$(sort -u "$out/interop/$name.note" 2>/dev/null | paste -sd ' ' || true)
            echo "INTEROP PASS $name${note:+ (note: $note)}"
            passed=$((passed + 1))
        else
            echo "INTEROP FAIL $name: ${v#FAIL }  [interop/$name.*.log]"
            failed=$((failed + 1))
        fi
    done < "$checks"
    echo "$passed passed, $failed failed"
    ((failed == 0 && passed > 0))
}

status=0
for r in "${roles[@]}"; do
    [[ $(verdict "$r") == ok ]] || status=1
done
interop_lines=
if $interop; then
    interop_lines=$(interop_summary) || status=1
fi
{
    echo "== rxe-vm summary: $($pair && echo "pair" || echo "one guest"), kernel $kver, $accel, run $run_took s" \
        "(attempt $attempt), total $(since "$t0") s"
    [[ -z $retried ]] || echo "$retried"
    for r in "${roles[@]}"; do
        echo "guest $r: $(describe "$r")  [${dir_of[$r]}/cmd.log, ${dir_of[$r]}/console.log]"
    done
    while IFS= read -r d; do
        totals=$(tck_totals "$d") && echo "TCK ${d#"$out"/}: $totals"
    done < <(find "$out" -name '*.xml' -newer "$marker" -not -path "$out/vm*" -printf '%h\n' | sort -u)
    [[ -z $interop_lines ]] || printf '%s\n' "$interop_lines"
    if ((status == 0)); then echo "RESULT: PASS"; else echo "RESULT: FAIL"; fi
} | tee "$summary"
exit $status
