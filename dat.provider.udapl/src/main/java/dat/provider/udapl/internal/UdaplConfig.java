// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.DatSetting;
import java.util.List;

/** The bridge's names, settings and the unavailable reasons it reports. */
final class UdaplConfig {

    /** {@link dat.spi.DatProvider#name()}. */
    static final String PROVIDER_NAME = "udapl";
    /** The bridge's own version (the C provider's is in its attributes). */
    static final String PROVIDER_VERSION = "0.1";
    /** The module {@code --enable-native-access} must name. */
    static final String MODULE_NAME = "dat.provider.udapl";

    /** Unavailable: no native access for the module. */
    static final String NATIVE_ACCESS_REASON =
            "native access is not enabled: run with --enable-native-access=" + MODULE_NAME;
    /** Unavailable: no native access, provider on the class path or in an OSGi bundle. */
    static final String NATIVE_ACCESS_UNNAMED_REASON =
            "native access is not enabled: run with --enable-native-access=ALL-UNNAMED (the udapl bridge is in an"
                    + " unnamed module; on the module path use --enable-native-access=" + MODULE_NAME + ")";

    /** The property naming the libdat2 to load. */
    static final String LIBDAT_PROPERTY = "dat.udapl.libdat";
    /** The async EVD length the discovery's {@code dat_ia_open} asks for. */
    static final int DISCOVERY_ASYNC_QLEN = 8;
    /** At most this many {@code dat.conf} entries are listed. */
    static final int MAX_ENTRIES = 256;

    private UdaplConfig() {
    }

    /** {@return the libdat2 to load: a soname the dynamic loader finds, or a path} */
    static String libdat() {
        return System.getProperty(LIBDAT_PROPERTY, LibDat2.SONAME);
    }

    /** {@return where libdat2 reads its registry, for the reasons: {@code DAT_OVERRIDE} or the default} */
    static String datConfPath() {
        String override = System.getenv("DAT_OVERRIDE");
        return override != null ? override + " (DAT_OVERRIDE)" : "/etc/dat.conf";
    }

    /** {@return the unavailable reason when libdat2's registry names no IA} */
    static String noEntryReason() {
        return "libdat2's registry " + datConfPath() + " names no IA (a missing or unreadable file reads as empty);"
                + " add a line such as: ofa-v2-cma-roe u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0"
                + " \"<address or netdev> 0\" \"\", or point DAT_OVERRIDE at such a file";
    }

    static List<DatSetting> settings() {
        return List.of(DatSetting.of(LIBDAT_PROPERTY, LibDat2.SONAME,
                "the DAT 2.0 registry library to load: a soname the dynamic loader finds, or an absolute path; it"
                        + " reads DAT_OVERRIDE, else /etc/dat.conf, when it loads"));
    }
}
