// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.LibraryUnavailableException;
import dat.provider.verbs.internal.ffm.NativeTypes;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The verbs provider: one IA per active port of every RDMA device, named {@code ofa-v2-<device>-<port>} as
 * uDAPL's {@code dat.conf} names them.
 *
 * <p>The constructor does nothing. The first {@link #info()} checks, in this order and stopping at the first
 * failure: the platform; that this module has native access ({@link Module#isNativeAccessEnabled()}, checked
 * before any restricted method so a JVM without {@code --enable-native-access=dat.provider.verbs} prints no
 * warning); that libibverbs and librdmacm load; that {@code ibv_get_device_list} finds a device with an active
 * port. The result is cached: devices are scanned once per provider instance. Every active port is an IA that
 * {@link #open} opens as a {@link VerbsIa}.
 */
public final class VerbsProvider implements DatProvider {

    private final Object lock = new Object();
    private Discovery discovery; // guarded by lock

    /** Creates the provider; does no work. */
    public VerbsProvider() {
    }

    /**
     * The outcome of the first {@link #info()}.
     *
     * @param info what {@link #info()} returns
     * @param found the IAs of the active ports, whatever the availability
     */
    private record Discovery(DatProviderInfo info, List<DatIaInfo> found, List<VerbsPort> ports,
                             LibIbverbs verbs, LibRdmacm cm) {
    }

    @Override
    public String name() {
        return VerbsConfig.PROVIDER_NAME;
    }

    @Override
    public DatProviderInfo info() {
        return discovery().info();
    }

    /** Describes an IA of an active port: the attributes come from the device. {@code iaParams} is reported back. */
    @Override
    public DatIaInfo describe(String iaName, String iaParams) {
        Discovery d = discovery();
        for (DatIaInfo ia : d.found()) {
            if (ia.iaName().equals(iaName)) {
                return new DatIaInfo(ia.iaName(), iaParams == null ? "" : iaParams, ia.providerAttr(), ia.iaAttr());
            }
        }
        String why = d.info().available() ? "" : " (" + d.info().unavailableReason() + ")";
        throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                "provider " + name() + " offers no IA named " + iaName + why);
    }

    /** {@code dat_ia_open} of an active port's IA. */
    @Override
    public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
        Discovery d = discovery();
        if (d.info().available()) {
            for (VerbsPort port : d.ports()) {
                if (port.iaName().equals(iaName)) {
                    return VerbsIa.open(port, d.verbs(), d.cm(), asyncEvdMinQlen);
                }
            }
        }
        String why = d.info().available() ? "" : ": provider " + name() + " is unavailable: "
                + d.info().unavailableReason();
        throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                "dat_ia_open: no IA named " + iaName + why);
    }

    private Discovery discovery() {
        synchronized (lock) {
            if (discovery == null) {
                discovery = discover();
            }
            return discovery;
        }
    }

    /** Never throws: anything unexpected becomes the unavailable reason. */
    private Discovery discover() {
        try {
            return discoverOrThrow();
        } catch (RuntimeException | LinkageError e) {
            return unavailable("the verbs device scan failed: " + e);
        }
    }

    private Discovery discoverOrThrow() {
        String platform = NativeTypes.unsupportedPlatformReason();
        if (platform != null) {
            return unavailable(platform);
        }
        Module module = VerbsProvider.class.getModule();
        if (!module.isNativeAccessEnabled()) {
            return unavailable(VerbsConfig.nativeAccessReason(module));
        }
        LibIbverbs verbs;
        LibRdmacm cm;
        try {
            verbs = LibIbverbs.load(VerbsConfig.libibverbs());
            cm = LibRdmacm.load(VerbsConfig.librdmacm());
        } catch (LibraryUnavailableException e) {
            return unavailable(e.getMessage());
        }
        if (!VerbsDeviceScan.kernelListsDevices()) {
            return unavailable(VerbsConfig.NO_DEVICE_REASON);
        }
        VerbsDeviceScan.Result scan = VerbsDeviceScan.scan(verbs);
        if (scan.noRdma() || scan.deviceCount() == 0) {
            return unavailable(VerbsConfig.NO_DEVICE_REASON);
        }
        List<DatIaInfo> found = new ArrayList<>();
        List<VerbsPort> active = new ArrayList<>();
        for (VerbsPort port : scan.ports()) {
            if (port.portLimits().state() == LibIbverbs.IBV_PORT_ACTIVE) {
                active.add(port);
                found.add(new DatIaInfo(port.iaName(), "", VerbsAttributes.providerAttr(port),
                        VerbsAttributes.iaAttr(port)));
            }
        }
        if (found.isEmpty()) {
            return unavailable(noActivePortReason(scan));
        }
        return new Discovery(DatProviderInfo.available(name(), VerbsConfig.PROVIDER_VERSION,
                found, VerbsConfig.settings()), found, active, verbs, cm);
    }

    private static String noActivePortReason(VerbsDeviceScan.Result scan) {
        Map<String, String> states = new LinkedHashMap<>();
        for (VerbsPort port : scan.ports()) {
            states.put(port.device() + " port " + port.port(), portStateName(port.portLimits().state()));
        }
        StringBuilder sb = new StringBuilder("no active RDMA port (");
        sb.append(states.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")));
        for (String problem : scan.problems()) {
            sb.append(states.isEmpty() && sb.charAt(sb.length() - 1) == '(' ? "" : ", ").append(problem);
        }
        return sb.append("); bring the link of its netdev up (ip link set <if> up) or check the cable and subnet"
                + " manager").toString();
    }

    static String portStateName(int state) {
        return switch (state) {
            case LibIbverbs.IBV_PORT_DOWN -> "DOWN";
            case LibIbverbs.IBV_PORT_INIT -> "INIT";
            case LibIbverbs.IBV_PORT_ARMED -> "ARMED";
            case LibIbverbs.IBV_PORT_ACTIVE -> "ACTIVE";
            case LibIbverbs.IBV_PORT_ACTIVE_DEFER -> "ACTIVE_DEFER";
            default -> "state " + state;
        };
    }

    private Discovery unavailable(String reason) {
        return new Discovery(DatProviderInfo.unavailable(name(), VerbsConfig.PROVIDER_VERSION, reason,
                VerbsConfig.settings()), List.of(), List.of(), null, null);
    }
}
