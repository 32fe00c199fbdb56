// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiDomainAttr;
import dat.provider.ofi.internal.ffm.FiEpAttr;
import dat.provider.ofi.internal.ffm.FiFabricAttr;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** An RDM entry of libfabric opened as an IA opens it: the fabric and domain of a provider's first RDM entry. */
@SuppressWarnings("restricted") // the tests open libfabric objects themselves, as OfiIa does
final class RdmFixture {

    private final String provider;
    private final String domainName;

    /** The first shm entry. */
    RdmFixture() {
        this("shm", null);
    }

    /**
     * The first RDM entry of a provider (and domain, when given).
     *
     * @param provider the libfabric provider, for example {@code tcp;ofi_rxm}
     * @param domainName its domain, for example {@code lo}, or {@code null} for any
     */
    RdmFixture(String provider, String domainName) {
        this.provider = provider;
        this.domainName = domainName;
    }

    LibFabric fi;
    MemorySegment list;
    MemorySegment info;
    MemorySegment fabric;
    MemorySegment domain;

    void open() throws Exception {
        fi = LibFabric.load(LibFabric.LIBRARY);
        MemorySegment hints = fi.fi_allocinfo();
        try (Arena arena = Arena.ofConfined()) {
            FiInfo.caps(hints, LibFabric.FI_MSG | LibFabric.FI_RMA | LibFabric.FI_TAGGED);
            FiEpAttr.type(FiInfo.epAttr(hints).reinterpret(FiEpAttr.SIZEOF), LibFabric.FI_EP_RDM);
            MemorySegment out = arena.allocate(ADDRESS);
            fi.check("fi_getinfo", fi.fi_getinfo(LibFabric.version(LibFabric.API_MAJOR, LibFabric.API_MINOR),
                    MemorySegment.NULL, MemorySegment.NULL, 0, hints, out));
            list = out.get(ADDRESS, 0);
            for (MemorySegment i = list; i.address() != 0; i = FiInfo.next(i.reinterpret(FiInfo.SIZEOF))) {
                MemorySegment e = i.reinterpret(FiInfo.SIZEOF);
                MemorySegment fa = FiInfo.fabricAttr(e).reinterpret(FiFabricAttr.SIZEOF);
                MemorySegment da = FiInfo.domainAttr(e).reinterpret(FiDomainAttr.SIZEOF);
                boolean domainMatches = domainName == null
                        || domainName.equals(FiDomainAttr.name(da).reinterpret(64).getString(0));
                if (provider.equals(FiFabricAttr.provName(fa).reinterpret(64).getString(0)) && domainMatches
                        && info == null) {
                    info = e;
                }
            }
            assertNotNull(info, "libfabric offers " + provider + " (FI_EP_RDM)");
            fabric = fi.fi_fabric(FiInfo.fabricAttr(info), arena.allocate(ADDRESS));
            MemorySegment d = arena.allocate(ADDRESS);
            fi.check("fi_domain", fi.guarded(() -> Fi.fi_domain(fabric, info, d)));
            domain = d.get(ADDRESS, 0).reinterpret(64);
        } finally {
            fi.fi_freeinfo(hints);
        }
    }

    void close() {
        if (domain != null) {
            Fi.fi_close(domain);
        }
        if (fabric != null) {
            Fi.fi_close(fabric);
        }
        if (list != null) {
            fi.fi_freeinfo(list);
        }
    }
}
