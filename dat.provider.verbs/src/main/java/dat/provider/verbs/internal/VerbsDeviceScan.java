// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.provider.verbs.internal.ffm.IbvContextOps;
import dat.provider.verbs.internal.ffm.IbvDevice;
import dat.provider.verbs.internal.ffm.IbvDeviceAttr;
import dat.provider.verbs.internal.ffm.IbvGid;
import dat.provider.verbs.internal.ffm.IbvOps;
import dat.provider.verbs.internal.ffm.IbvPortAttr;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Lists the RDMA devices and their ports: {@code ibv_get_device_list}, then per device {@code ibv_open_device},
 * {@code ibv_query_device}, per port {@code ibv_query_port} and {@code ibv_query_gid}, then
 * {@code ibv_close_device} and {@code ibv_free_device_list}. Nothing stays open.
 *
 * <p>{@code ibv_get_device_list} returns {@code NULL}, not an empty list, on a machine without RDMA support, and
 * {@code ibv_free_device_list(NULL)} crashes: a {@code NULL} list is reported as {@link Result#noRdma()} and
 * never freed.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class VerbsDeviceScan {

    /**
     * What the scan found.
     *
     * @param noRdma {@code ibv_get_device_list} returned {@code NULL}
     * @param deviceCount the number of devices listed
     * @param ports every port of every device that could be opened, active or not
     * @param problems per-device failures, for example {@code rxe0: ibv_open_device: EACCES (Permission denied)}
     */
    record Result(boolean noRdma, int deviceCount, List<VerbsPort> ports, List<String> problems) {

        /** Makes the lists immutable. */
        Result {
            ports = List.copyOf(ports);
            problems = List.copyOf(problems);
        }
    }

    private VerbsDeviceScan() {
    }

    /**
     * {@return whether the kernel lists a verbs device: an {@code uverbs*} entry under the {@code
     * class/infiniband_verbs} directory of sysfs (libibverbs' {@code SYSFS_PATH}, else {@code /sys})} libibverbs
     * finds its devices there (each device it lists has such an entry, its netlink listing included), and its
     * {@code ibv_get_device_list} returns {@code NULL} without the directory: on a machine without one, the scan's
     * first downcall, whose linking is most of the provider's share of {@code dat info}'s start time, is not needed
     * to say so. A directory that cannot be read leaves the answer to libibverbs.
     */
    static boolean kernelListsDevices() {
        String sysfs = System.getenv("SYSFS_PATH");
        return kernelListsDevices(Path.of(sysfs == null || sysfs.isEmpty() ? "/sys" : sysfs));
    }

    /**
     * {@return whether {@code sysfs} lists a verbs device (see {@link #kernelListsDevices()})}
     *
     * @param sysfs where sysfs is mounted
     */
    static boolean kernelListsDevices(Path sysfs) {
        Path dir = sysfs.resolve("class").resolve("infiniband_verbs");
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "uverbs*")) {
            return entries.iterator().hasNext();
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /**
     * {@return what was found; per-device failures are in {@link Result#problems()}, not thrown}
     *
     * @param lib the loaded libibverbs
     */
    static Result scan(LibIbverbs lib) {
        try (Arena arena = Arena.ofConfined()) {
            try {
                MemorySegment count = arena.allocate(JAVA_INT);
                MemorySegment list = lib.ibv_get_device_list(count);
                if (list.address() == 0) {
                    return new Result(true, 0, List.of(), List.of());
                }
                List<VerbsPort> ports = new ArrayList<>();
                List<String> problems = new ArrayList<>();
                int n = count.get(JAVA_INT, 0);
                try {
                    MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (n + 1L));
                    for (int i = 0; i < n; i++) {
                        scanDevice(lib, arena, devices.getAtIndex(ADDRESS, i), ports, problems);
                    }
                } finally {
                    lib.ibv_free_device_list(list);
                }
                return new Result(false, n, ports, problems);
            } finally {
                // The attribute segments belong to this arena: keep it reachable until every downcall is done.
                Reference.reachabilityFence(arena);
            }
        }
    }

    private static void scanDevice(LibIbverbs lib, Arena arena, MemorySegment device, List<VerbsPort> ports,
                                   List<String> problems) {
        String name = "device";
        try {
            name = lib.ibv_get_device_name(device);
            int transport = IbvDevice.transportType(device.reinterpret(IbvDevice.SIZE));
            MemorySegment context = lib.ibv_open_device(device);
            try {
                MemorySegment attr = arena.allocate(IbvDeviceAttr.LAYOUT);
                lib.ibv_query_device(context, attr);
                DeviceLimits limits = DeviceLimits.read(attr);
                boolean windowVerbs = IbvOps.function(context, IbvContextOps.ALLOC_MW).address() != 0
                        && IbvOps.function(context, IbvContextOps.BIND_MW).address() != 0
                        && IbvOps.function(context, IbvContextOps.DEALLOC_MW).address() != 0;
                for (int port = 1; port <= limits.physPortCnt(); port++) {
                    MemorySegment portAttr = arena.allocate(IbvPortAttr.LAYOUT);
                    lib.ibv_query_port(context, port, portAttr);
                    PortLimits portLimits = PortLimits.read(portAttr);
                    byte[] gid = findGid(lib, arena, context, port, portLimits.gidTblLen());
                    ports.add(new VerbsPort(name, port, transport, limits, portLimits, address(gid),
                            gid == null ? "" : gidText(gid), windowVerbs));
                }
            } finally {
                lib.ibv_close_device(context);
            }
        } catch (NativeCallException e) {
            problems.add(name + ": " + e.getMessage());
        }
    }

    /**
     * The GID whose address rdma_cm would use: the first IPv4-mapped entry ({@code ::ffff:a.b.c.d}, RoCE over
     * IPv4), else the first non-zero entry; {@code null} when the table is empty. Entries that fail to read are
     * skipped (RoCE tables have holes).
     */
    private static byte[] findGid(LibIbverbs lib, Arena arena, MemorySegment context, int port, int tableLength) {
        MemorySegment gid = arena.allocate(IbvGid.LAYOUT);
        byte[] firstNonZero = null;
        for (int index = 0; index < Math.min(tableLength, VerbsConfig.GID_SCAN_LIMIT); index++) {
            try {
                lib.ibv_query_gid(context, port, index, gid);
            } catch (NativeCallException e) {
                continue;
            }
            byte[] raw = IbvGid.raw(gid).toArray(JAVA_BYTE);
            if (isIpv4Mapped(raw)) {
                return raw;
            }
            if (firstNonZero == null && !isZero(raw)) {
                firstNonZero = raw;
            }
        }
        return firstNonZero;
    }

    static boolean isIpv4Mapped(byte[] gid) {
        for (int i = 0; i < 10; i++) {
            if (gid[i] != 0) {
                return false;
            }
        }
        return gid[10] == (byte) 0xff && gid[11] == (byte) 0xff;
    }

    private static boolean isZero(byte[] gid) {
        for (byte b : gid) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return the IPv4 address of an IPv4-mapped GID, the GID as an IPv6 address otherwise, {@code ::} for none}
     *
     * @param gid a GID, or {@code null}
     */
    static InetAddress address(byte[] gid) {
        try {
            if (gid == null) {
                return InetAddress.getByAddress(new byte[16]);
            }
            // getByAddress turns an IPv4-mapped 16-byte address into an Inet4Address by itself.
            return InetAddress.getByAddress(gid);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a 16-byte address is always valid", e);
        }
    }

    /**
     * {@return the form ibv_devinfo prints, eight groups of four hex digits}
     *
     * @param gid 16 bytes
     */
    static String gidText(byte[] gid) {
        String hex = HexFormat.of().formatHex(gid);
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
