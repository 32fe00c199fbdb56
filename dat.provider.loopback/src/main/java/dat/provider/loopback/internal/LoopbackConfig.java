// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.spi.DatSetting;
import java.util.ArrayList;
import java.util.List;

/**
 * Every setting and limit of the loopback provider in one place (Aeron's {@code *_PROPERTY} /
 * {@code *_DEFAULT} pairs). The limits are what {@code dat_ia_query} reports and what the provider enforces.
 */
final class LoopbackConfig {

    private LoopbackConfig() {
    }

    /** System property: comma-separated names of the IAs {@code info()} lists. */
    static final String IAS_PROPERTY = "dat.loopback.ias";
    /** Default of {@link #IAS_PROPERTY}. */
    static final String IAS_DEFAULT = "loopback0";

    static final String PROVIDER_NAME = "loopback";
    static final String PROVIDER_VERSION = "1.0";
    static final int PROVIDER_VERSION_MAJOR = 1;
    static final int PROVIDER_VERSION_MINOR = 0;

    static final int MAX_EPS = 1024;
    static final int MAX_DTO_PER_EP = 4096;
    static final int MAX_RDMA_READ_PER_EP = 16;
    static final int MAX_EVDS = 1024;
    static final int MAX_EVD_QLEN = 65536;
    static final int MAX_IOV_SEGMENTS = 16;
    static final int MAX_LMRS = 4096;
    /** Any native segment can be registered; 1 TiB keeps sums of IOV lengths far from overflow. */
    static final long MAX_LMR_BLOCK_SIZE = 1L << 40;
    static final int MAX_PZS = 256;
    static final long MAX_MESSAGE_SIZE = 1L << 30;
    static final long MAX_RDMA_SIZE = 1L << 30;
    static final int MAX_RMRS = 4096;
    static final int MAX_SRQS = 256;
    static final int MAX_EP_PER_SRQ = 1024;
    static final int MAX_RECV_PER_SRQ = 65536;
    static final int MAX_PRIVATE_DATA_SIZE = 256;
    /**
     * {@code optimal_buffer_alignment}: data moves with {@code MemorySegment.copy} (a memmove); there is no DMA
     * engine whose page or burst size would reward more than cache-line alignment, and 64 divides 256 as DAT
     * requires.
     */
    static final int OPTIMAL_BUFFER_ALIGNMENT = 64;

    /** {@return the IA names {@link #IAS_PROPERTY} lists, without blanks or duplicates} */
    static List<String> iaNames() {
        List<String> names = new ArrayList<>();
        for (String part : System.getProperty(IAS_PROPERTY, IAS_DEFAULT).split(",", -1)) {
            String name = part.strip();
            if (!name.isEmpty() && !names.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }

    /** {@return the settings, with their current values, for {@code dat info -e}} */
    static List<DatSetting> settings() {
        return List.of(DatSetting.of(IAS_PROPERTY, IAS_DEFAULT,
                "comma-separated names of the in-process IAs the loopback provider lists"));
    }
}
