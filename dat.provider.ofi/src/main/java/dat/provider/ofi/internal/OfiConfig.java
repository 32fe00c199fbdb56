// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.spi.DatSetting;
import dat.spi.NativeAccess;
import java.util.List;
import java.util.Locale;

/**
 * The ofi provider's identity, names, settings and the reasons it gives when it cannot work, in one place.
 *
 * <p>libfabric reads {@code FI_PROVIDER}, {@code FI_PROVIDER_PATH} and its other {@code FI_*} variables from the
 * environment of the process; jDAT sets none of them and passes no provider name in its {@code fi_getinfo} hints, so
 * whatever the user exports decides which libfabric providers the scan sees.
 */
final class OfiConfig {

    /** {@code provider_name}, and what {@code dat.providers} names. */
    static final String PROVIDER_NAME = "ofi";
    /** {@code provider_version_major}. */
    static final int PROVIDER_VERSION_MAJOR = 0;
    /** {@code provider_version_minor}. */
    static final int PROVIDER_VERSION_MINOR = 1;
    /** The version string of {@code DatProviderInfo}. */
    static final String PROVIDER_VERSION = PROVIDER_VERSION_MAJOR + "." + PROVIDER_VERSION_MINOR;

    /** The module name that {@code --enable-native-access} must name. */
    static final String MODULE_NAME = "dat.provider.ofi";

    /** The system property naming the libfabric the provider loads. */
    static final String LIBFABRIC_PROPERTY = "dat.ofi.libfabric";
    /** Its default: the soname, found by the dynamic loader. */
    static final String LIBFABRIC_DEFAULT = "libfabric.so.1";
    /** The system property that turns the provider's trace on. */
    static final String TRACE_PROPERTY = "dat.ofi.trace";
    /** Whether connection events and completions are printed to standard error. */
    static final boolean TRACE = Boolean.getBoolean(TRACE_PROPERTY);
    /** The system property that offers the entries of libfabric providers the kit has not passed on. */
    static final String UNVERIFIED_PROPERTY = "dat.ofi.unverified";
    /**
     * The libfabric providers whose {@code FI_EP_MSG} entries jDAT has passed its kit on (tcp on the host in the build,
     * verbs on soft-RoCE in the guest; shm is the one RDM provider, checked by the scan's own test). Others behave
     * differently where DAT looks closely: libfabric 1.17's {@code sockets} answers a taken port with
     * {@code -FI_EINVAL} and a refused connect at once, and its {@code net} crashed in {@code fi_control} of a passive
     * endpoint's EQ (docs/ofi.md, "Which libfabric providers").
     */
    static final List<String> VERIFIED_MSG = List.of("tcp", "verbs");

    /** {@return whether the entries of providers outside {@link #VERIFIED_MSG} are offered too} */
    static boolean unverified() {
        return Boolean.getBoolean(UNVERIFIED_PROPERTY);
    }

    private OfiConfig() {
    }

    /**
     * {@return the native-access hint for where the provider was loaded from}
     *
     * @param module its module
     */
    static String nativeAccessReason(Module module) {
        return NativeAccess.reason(module, MODULE_NAME, PROVIDER_NAME);
    }

    /** {@return the libfabric to load} */
    static String libfabric() {
        return System.getProperty(LIBFABRIC_PROPERTY, LIBFABRIC_DEFAULT);
    }

    /** {@return the provider's settings} */
    static List<DatSetting> settings() {
        return List.of(
                DatSetting.of(LIBFABRIC_PROPERTY, LIBFABRIC_DEFAULT,
                        "libfabric to load: a soname the dynamic loader finds, or an absolute path"),
                DatSetting.of(TRACE_PROPERTY, "false", "true prints every connection event and completion to"
                        + " standard error"),
                DatSetting.of(UNVERIFIED_PROPERTY, "false", "true offers the FI_EP_MSG entries of libfabric providers"
                        + " the conformance kit has not passed on (all but " + String.join(", ", VERIFIED_MSG) + ")"));
    }

    /** Prints one trace line; callers test {@link #TRACE} first. */
    static void trace(String line) {
        System.err.println("[ofi " + System.nanoTime() / 1_000_000 + "] " + line);
    }

    /**
     * The IA name of an {@code fi_info} entry: {@code ofi-<provider>-<domain>}, for example {@code ofi-tcp-lo}, and
     * {@code ofi-<provider>-<domain>-<fabric>} for every further entry of the same provider and domain (another
     * address family or subnet: {@code ofi-tcp-lo-1-128} for {@code ::1/128}). Each part keeps letters, digits,
     * {@code .}, {@code _} and {@code +} ({@code tcp;ofi_rxm} becomes {@code tcp+ofi_rxm}); any other run of
     * characters becomes one {@code -}. An entry whose endpoints are not {@code FI_EP_MSG} ends in {@code -rdm}
     * ({@code FI_EP_RDM}) or {@code -ep<type>}, the first of its provider and domain being
     * {@code ofi-<provider>-<domain>-rdm} ({@code ofi-shm-shm-rdm}), so it never takes a MSG entry's name.
     *
     * @param provider {@code fabric_attr->prov_name}
     * @param domain {@code domain_attr->name}
     * @param fabric {@code fabric_attr->name}, or {@code null} for the first entry of its provider and domain
     * @return the name
     */
    static String iaName(String provider, String domain, String fabric) {
        String base = "ofi-" + part(provider.replace(';', '+')) + "-" + part(domain);
        return fabric == null ? base : base + "-" + part(fabric);
    }

    static String part(String s) {
        String p = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._+]+", "-");
        p = p.replaceAll("^-+|-+$", "");
        return p.isEmpty() ? "x" : p;
    }
}
