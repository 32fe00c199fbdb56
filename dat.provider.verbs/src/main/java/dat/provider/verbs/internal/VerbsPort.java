// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import java.net.InetAddress;
import java.util.Objects;

/**
 * One port of one device, as the device scan found it: what an IA named {@code ofa-v2-<device>-<port>} is
 * built from.
 *
 * @param device the kernel device name, for example {@code rxe0}
 * @param port the port number, from 1
 * @param transportType {@code ibv_device.transport_type} ({@code IBV_TRANSPORT_*})
 * @param deviceLimits the device's limits
 * @param portLimits the port's limits and state
 * @param address the IP address taken from the port's GID table (IPv4-mapped entries first), {@code ::} when
 *     the table holds none
 * @param gid the GID the address came from, in the usual {@code fe80:0000:...} form, {@code ""} when none
 * @param windowVerbs whether the device's driver fills the {@code alloc_mw}, {@code bind_mw} and
 *     {@code dealloc_mw} slots of its {@code ibv_context_ops} (the memory-window verbs call through them)
 */
record VerbsPort(String device, int port, int transportType, DeviceLimits deviceLimits, PortLimits portLimits,
                 InetAddress address, String gid, boolean windowVerbs) {

    /** Checks that nothing is null. */
    VerbsPort {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(deviceLimits, "deviceLimits");
        Objects.requireNonNull(portLimits, "portLimits");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(gid, "gid");
    }

    /** {@return the IA name, {@code ofa-v2-<device>-<port>}} */
    String iaName() {
        return VerbsConfig.iaName(device, port);
    }
}
