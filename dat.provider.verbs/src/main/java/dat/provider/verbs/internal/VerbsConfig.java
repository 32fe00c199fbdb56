// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.spi.DatSetting;
import dat.spi.NativeAccess;
import java.util.List;

/** The verbs provider's identity, names and the reasons it gives when it cannot work, in one place. */
final class VerbsConfig {

    /** {@code provider_name}, and what {@code dat.providers} names. */
    static final String PROVIDER_NAME = "verbs";
    /** {@code provider_version_major}. */
    static final int PROVIDER_VERSION_MAJOR = 0;
    /** {@code provider_version_minor}. */
    static final int PROVIDER_VERSION_MINOR = 1;
    /** The version string of {@code DatProviderInfo}. */
    static final String PROVIDER_VERSION = PROVIDER_VERSION_MAJOR + "." + PROVIDER_VERSION_MINOR;

    /** IA names follow uDAPL's {@code ofa-v2} provider entries: {@code ofa-v2-<device>-<port>}. */
    static final String IA_PREFIX = "ofa-v2-";

    /** How many GID table entries are read to find a port's IP address. */
    static final int GID_SCAN_LIMIT = 16;

    /** The module name that {@code --enable-native-access} must name. */
    static final String MODULE_NAME = "dat.provider.verbs";

    /** Unavailable: the module (on the module path) may not call restricted methods. */
    static final String NATIVE_ACCESS_REASON = NativeAccess.reason(MODULE_NAME, PROVIDER_NAME, true, false);

    /** Unavailable: the provider is on the class path, in the unnamed module, without native access. */
    static final String NATIVE_ACCESS_UNNAMED_REASON = NativeAccess.reason(MODULE_NAME, PROVIDER_NAME, false, false);

    /**
     * Unavailable: the provider is an OSGi bundle. A framework defines a bundle's classes in the unnamed module of the
     * bundle's class loader, and the JDK grants native access to unnamed modules only all together, for the JVM the
     * framework runs in.
     */
    static final String NATIVE_ACCESS_BUNDLE_REASON = NativeAccess.reason(MODULE_NAME, PROVIDER_NAME, false, true);

    /** The interface every OSGi framework's bundle class loader implements, named so verbs needs no OSGi jar. */
    static final String BUNDLE_REFERENCE = NativeAccess.BUNDLE_REFERENCE;

    /** Unavailable: the kernel lists no verbs device, or libibverbs reported none. */
    static final String NO_DEVICE_REASON = "no RDMA device (libibverbs lists none); for soft-RoCE: "
            + "modprobe rdma_rxe; rdma link add rxe0 type rxe netdev <if>";

    private VerbsConfig() {
    }

    /** The system property naming the libibverbs the provider loads. */
    static final String LIBIBVERBS_PROPERTY = "dat.verbs.libibverbs";
    /** Its default: the soname, found by the dynamic loader. */
    static final String LIBIBVERBS_DEFAULT = "libibverbs.so.1";
    /** The system property naming the librdmacm the provider loads. */
    static final String LIBRDMACM_PROPERTY = "dat.verbs.librdmacm";
    /** Its default: the soname, found by the dynamic loader. */
    static final String LIBRDMACM_DEFAULT = "librdmacm.so.1";

    /** The system property that turns the provider's trace on. */
    static final String TRACE_PROPERTY = "dat.verbs.trace";
    /**
     * Whether every work completion, connection-manager event and async event is printed to standard error, with
     * the QP state changes the provider makes. Final, so the JIT removes the tracing from the data path when off.
     */
    static final boolean TRACE = Boolean.getBoolean(TRACE_PROPERTY);

    /** The system property that sets the QPs' local ACK timeout. */
    static final String ACK_TIMEOUT_PROPERTY = "dat.verbs.ack.timeout";
    /** Its default: 4.096 us x 2^19, about 2.1 s per try. */
    static final int ACK_TIMEOUT_DEFAULT = 19;

    /**
     * The local ACK timeout exponent of every QP's RTS transition ({@code ibv_qp_attr.timeout}): a request not
     * acknowledged within 4.096 us x 2^N is sent again, and after the retries it fails and breaks the connection, so
     * a peer that vanished without a word (its link cut, its node dead) is noticed after about 7 times that. rdma_cm
     * would leave the RoCE default (in the soft-RoCE guest about 70 ms a try: 143 retries in a 10 s outage), which
     * with 6 retries gives a peer up after half a second; 19 gives a silent peer about 15 s, so a busy or emulated
     * host is not taken for a dead one. Values outside 1..31 fall back to the default.
     */
    static int ackTimeout() {
        int n = Integer.getInteger(ACK_TIMEOUT_PROPERTY, ACK_TIMEOUT_DEFAULT);
        return n >= 1 && n <= 31 ? n : ACK_TIMEOUT_DEFAULT;
    }

    /**
     * {@return the native-access hint for where the provider was loaded from}
     *
     * @param module the provider's module
     */
    static String nativeAccessReason(Module module) {
        return nativeAccessReason(module.isNamed(), isBundleLoader(module.getClassLoader()));
    }

    /**
     * {@return the native-access hint: the module's own name, the flag for a bundle's framework, or the class path's}
     *
     * @param namedModule whether the provider is in a named module (the module path, a module layer)
     * @param bundle whether an OSGi framework loaded it
     */
    static String nativeAccessReason(boolean namedModule, boolean bundle) {
        return NativeAccess.reason(MODULE_NAME, PROVIDER_NAME, namedModule, bundle);
    }

    /**
     * {@return whether a class loader is an OSGi bundle's: its class implements {@value #BUNDLE_REFERENCE}, as Felix's
     * and Equinox's do}
     *
     * @param loader the loader, {@code null} for the boot loader
     */
    static boolean isBundleLoader(ClassLoader loader) {
        return NativeAccess.isBundleLoader(loader);
    }

    /**
     * {@return whether a type is, extends or implements a type of that name, looked up by name only}
     *
     * @param type the type
     * @param name the binary name of the supertype
     */
    static boolean hasSupertype(Class<?> type, String name) {
        return NativeAccess.hasSupertype(type, name);
    }

    /** {@return the provider's settings, with their current values} */
    static List<DatSetting> settings() {
        return List.of(
                DatSetting.of(LIBIBVERBS_PROPERTY, LIBIBVERBS_DEFAULT,
                        "libibverbs to load: a soname the dynamic loader finds, or an absolute path"),
                DatSetting.of(LIBRDMACM_PROPERTY, LIBRDMACM_DEFAULT,
                        "librdmacm to load: a soname the dynamic loader finds, or an absolute path"),
                DatSetting.of(TRACE_PROPERTY, "false", "true prints every work completion, connection-manager"
                        + " event, async event and QP state change to standard error"),
                DatSetting.of(ACK_TIMEOUT_PROPERTY, Integer.toString(ACK_TIMEOUT_DEFAULT), "local ACK timeout"
                        + " exponent of every QP (4.096 us x 2^N per try, 7 tries before the connection breaks)"));
    }

    /** Prints one trace line; callers test {@link #TRACE} first. */
    static void trace(String line) {
        System.err.println("[verbs " + System.nanoTime() / 1_000_000 + "] " + line);
    }

    /** {@return the libibverbs to load} */
    static String libibverbs() {
        return System.getProperty(LIBIBVERBS_PROPERTY, LIBIBVERBS_DEFAULT);
    }

    /** {@return the librdmacm to load} */
    static String librdmacm() {
        return System.getProperty(LIBRDMACM_PROPERTY, LIBRDMACM_DEFAULT);
    }

    /**
     * {@return the IA name, for example {@code ofa-v2-rxe0-1}}
     *
     * @param device the kernel device name
     * @param port the port number, from 1
     */
    static String iaName(String device, int port) {
        return IA_PREFIX + device + "-" + port;
    }
}
