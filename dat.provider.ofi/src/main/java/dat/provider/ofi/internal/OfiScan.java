// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiDomainAttr;
import dat.provider.ofi.internal.ffm.FiEpAttr;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiFabricAttr;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.FiRxAttr;
import dat.provider.ofi.internal.ffm.FiTxAttr;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.ffm.SockaddrIn;
import dat.provider.ofi.internal.ffm.SockaddrIn6;
import dat.provider.ofi.internal.rdm.RdmControl;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The scan: one {@code fi_getinfo} for every entry with messages and RMA ({@code FI_MSG | FI_RMA}), of any endpoint
 * type, at API 1.17, naming no provider (so {@code FI_PROVIDER} decides), offering the modes and memory-registration
 * modes jDAT can honour so that entries needing them are listed too and judged here. Each entry becomes an
 * {@link OfiEntry}: usable when it is {@code FI_EP_MSG} on an IP address, or {@code FI_EP_RDM} with tagged messages
 * on {@code shm} (DAT over an association, docs/ofi-rdm-protocol.md), with nothing jDAT cannot honour; otherwise
 * with the reason.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiScan {

    /**
     * The modes the hints offer: jDAT honours FI_RX_CQ_DATA (its only remote CQ data, the receiver credits', rides on
     * sends, which take a receive anyway); the rest are judged.
     */
    static final long MODES_OFFERED = LibFabric.FI_CONTEXT | LibFabric.FI_CONTEXT2 | LibFabric.FI_MSG_PREFIX
            | LibFabric.FI_RX_CQ_DATA;
    /** The modes jDAT honours. */
    static final long MODES_HONOURED = LibFabric.FI_RX_CQ_DATA;
    /** The registration modes the hints offer. */
    static final int MR_MODES_OFFERED = LibFabric.FI_MR_LOCAL | LibFabric.FI_MR_VIRT_ADDR
            | LibFabric.FI_MR_ALLOCATED | LibFabric.FI_MR_PROV_KEY | LibFabric.FI_MR_ENDPOINT;
    /** The registration modes jDAT honours: descriptors always passed, virtual addresses, allocated memory, keys. */
    static final int MR_MODES_HONOURED = LibFabric.FI_MR_LOCAL | LibFabric.FI_MR_VIRT_ADDR
            | LibFabric.FI_MR_ALLOCATED | LibFabric.FI_MR_PROV_KEY;

    /** The outcome: the entries, or why there are none. */
    record Result(List<OfiEntry> entries, String noEntries) {
    }

    private OfiScan() {
    }

    static Result scan(LibFabric fi) {
        MemorySegment hints = fi.fi_allocinfo();
        MemorySegment list;
        try (Arena arena = Arena.ofConfined()) {
            FiInfo.caps(hints, LibFabric.FI_MSG | LibFabric.FI_RMA);
            offer(hints);
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = fi.fi_getinfo(LibFabric.version(LibFabric.API_MAJOR, LibFabric.API_MINOR), MemorySegment.NULL,
                    MemorySegment.NULL, 0, hints, out);
            if (rc == -LibFabric.FI_ENODATA) {
                return new Result(List.of(), "fi_getinfo found no fabric with messages and RMA (FI_MSG | FI_RMA)"
                        + providerHint());
            }
            if (rc < 0) {
                return new Result(List.of(), "fi_getinfo failed: " + fi.fi_strerror(-rc) + " (" + rc + ")"
                        + providerHint());
            }
            list = out.get(ADDRESS, 0);
        } finally {
            fi.fi_freeinfo(hints);
        }
        MemorySegment rdm = rdmList(fi);
        try {
            return new Result(entries(fi, list, rdm), null);
        } finally {
            fi.fi_freeinfo(list);
            if (rdm.address() != 0) {
                fi.fi_freeinfo(rdm);
            }
        }
    }

    private static void offer(MemorySegment hints) {
        FiInfo.mode(hints, MODES_OFFERED);
        MemorySegment domainAttr = FiInfo.domainAttr(hints).reinterpret(FiDomainAttr.SIZEOF);
        FiDomainAttr.mrMode(domainAttr, MR_MODES_OFFERED);
    }

    /**
     * {@return the {@code FI_EP_RDM} entries with tagged messages too, or NULL} DAT over RDM sends every message
     * tagged (docs/ofi-rdm-protocol.md, "Tags"), and an entry only has {@code FI_TAGGED} in its caps when the hints
     * asked for it, so the RDM entries come from a scan of their own rather than from the first one's.
     */
    private static MemorySegment rdmList(LibFabric fi) {
        MemorySegment hints = fi.fi_allocinfo();
        try (Arena arena = Arena.ofConfined()) {
            FiInfo.caps(hints, LibFabric.FI_MSG | LibFabric.FI_RMA | LibFabric.FI_TAGGED);
            offer(hints);
            FiEpAttr.type(ep(hints), LibFabric.FI_EP_RDM);
            MemorySegment out = arena.allocate(ADDRESS);
            int rc = fi.fi_getinfo(LibFabric.version(LibFabric.API_MAJOR, LibFabric.API_MINOR), MemorySegment.NULL,
                    MemorySegment.NULL, 0, hints, out);
            return rc == 0 ? out.get(ADDRESS, 0) : MemorySegment.NULL;
        } finally {
            fi.fi_freeinfo(hints);
        }
    }

    private static String providerHint() {
        String p = System.getenv("FI_PROVIDER");
        return p == null ? "" : " (FI_PROVIDER=" + p + " limits the scan)";
    }

    private static List<OfiEntry> entries(LibFabric fi, MemorySegment list, MemorySegment rdm) {
        List<MemorySegment> infos = new ArrayList<>();
        for (MemorySegment i = list; i.address() != 0; i = FiInfo.next(i.reinterpret(FiInfo.SIZEOF))) {
            MemorySegment info = i.reinterpret(FiInfo.SIZEOF);
            // The RDM entries come from the tagged scan when it found any (rdmList); from this one otherwise.
            if (rdm.address() == 0 || FiEpAttr.type(ep(info)) != LibFabric.FI_EP_RDM) {
                infos.add(info);
            }
        }
        for (MemorySegment i = rdm; i.address() != 0; i = FiInfo.next(i.reinterpret(FiInfo.SIZEOF))) {
            infos.add(i.reinterpret(FiInfo.SIZEOF));
        }
        // The first entry of a provider, domain and endpoint type gets the short name (for MSG the first IPv4 one);
        // the others add their fabric.
        Map<String, Integer> plain = new HashMap<>();
        for (int k = 0; k < infos.size(); k++) {
            MemorySegment info = infos.get(k);
            String key = OfiConfig.iaName(provider(info), domain(info), null) + "#" + FiEpAttr.type(ep(info));
            Integer chosen = plain.get(key);
            if (chosen == null || (isIpv4Msg(info) && !isIpv4Msg(infos.get(chosen)))) {
                plain.put(key, k);
            }
        }
        Set<String> names = new HashSet<>();
        List<OfiEntry> out = new ArrayList<>();
        for (int k = 0; k < infos.size(); k++) {
            MemorySegment info = infos.get(k);
            int type = FiEpAttr.type(ep(info));
            String base = OfiConfig.iaName(provider(info), domain(info), null);
            Integer shortName = plain.get(base + "#" + type);
            String name = shortName != null && shortName == k ? base
                    : OfiConfig.iaName(provider(info), domain(info), fabric(info));
            if (type != LibFabric.FI_EP_MSG) {
                name = name + "-" + (type == LibFabric.FI_EP_RDM ? "rdm" : "ep" + type);
            }
            String unique = name;
            for (int n = 2; !names.add(unique); n++) {
                unique = name + "-" + n;
            }
            out.add(entry(fi, unique, info));
        }
        return out;
    }

    private static boolean isIpv4Msg(MemorySegment info) {
        return FiInfo.addrFormat(info) == LibFabric.FI_SOCKADDR_IN && FiEpAttr.type(ep(info)) == LibFabric.FI_EP_MSG;
    }

    private static OfiEntry entry(LibFabric fi, String name, MemorySegment info) {
        MemorySegment tx = FiInfo.txAttr(info).reinterpret(FiTxAttr.SIZEOF);
        MemorySegment rx = FiInfo.rxAttr(info).reinterpret(FiRxAttr.SIZEOF);
        MemorySegment ep = ep(info);
        MemorySegment dom = FiInfo.domainAttr(info).reinterpret(FiDomainAttr.SIZEOF);
        int epType = FiEpAttr.type(ep);
        boolean rdm = epType == LibFabric.FI_EP_RDM;
        InetAddress address = rdm ? rdmAddress(info) : address(info);
        String unusable = rdm ? unusableRdm(info, dom) : unusable(info, epType, address, dom);
        // An RDM connection's private data travels in the protocol's control messages: their size is the limit.
        long cmData = unusable == null ? rdm ? RdmControl.MAX_CONSUMER_DATA : cmDataSize(fi, info) : -1;
        if (unusable == null && cmData < 0) {
            unusable = "its passive endpoint does not say how much connection data it carries (FI_OPT_CM_DATA_SIZE)";
        }
        long maxMsg = FiEpAttr.maxMsgSize(ep);
        OfiEntry.Limits limits = new OfiEntry.Limits(epType, FiInfo.addrFormat(info), FiInfo.caps(info),
                FiInfo.mode(info), FiDomainAttr.mrMode(dom), FiDomainAttr.mrKeySize(dom), FiTxAttr.size(tx),
                FiRxAttr.size(rx), FiTxAttr.iovLimit(tx), FiRxAttr.iovLimit(rx), FiTxAttr.rmaIovLimit(tx),
                FiTxAttr.injectSize(tx), maxMsg < 0 ? Long.MAX_VALUE : maxMsg, FiDomainAttr.epCnt(dom),
                FiDomainAttr.cqCnt(dom), FiDomainAttr.maxEpSrxCtx(dom), FiDomainAttr.mrCnt(dom),
                FiDomainAttr.threading(dom), FiDomainAttr.dataProgress(dom), cmData);
        return new OfiEntry(name, provider(info), fabric(info), domain(info), address, fi.fi_dupinfo(info), limits,
                unusable);
    }

    /**
     * {@return the IA address of an RDM entry: the host's loopback address for {@code shm}, whose listen endpoints
     * are names of the host (docs/ofi-rdm-protocol.md, "Endpoints and addresses"); {@code null} otherwise}
     */
    static InetAddress rdmAddress(MemorySegment info) {
        return FiInfo.addrFormat(info) == LibFabric.FI_ADDR_STR && "shm".equals(provider(info))
                ? InetAddress.getLoopbackAddress() : null;
    }

    /** Why DAT cannot run over an {@code FI_EP_RDM} entry, or {@code null}. */
    private static String unusableRdm(MemorySegment info, MemorySegment dom) {
        long caps = FiInfo.caps(info);
        long needed = LibFabric.FI_MSG | LibFabric.FI_TAGGED | LibFabric.FI_RMA;
        if ((caps & needed) != needed) {
            return "an FI_EP_RDM entry without FI_MSG, FI_TAGGED and FI_RMA, which DAT over RDM needs";
        }
        if (rdmAddress(info) == null) {
            return "an FI_EP_RDM entry of " + provider(info) + ": the provider's RDM listen addresses are built only"
                    + " for shm's names (FI_ADDR_STR) yet, not for socket addresses (docs/ofi-rdm-protocol.md)";
        }
        return modesUnusable(info, dom);
    }

    private static String unusable(MemorySegment info, int epType, InetAddress address, MemorySegment dom) {
        if (epType != LibFabric.FI_EP_MSG) {
            return "endpoint type " + epType + " is neither FI_EP_MSG nor FI_EP_RDM";
        }
        if (address == null) {
            return "address format " + FiInfo.addrFormat(info) + " is not an IP socket address (FI_SOCKADDR_IN/IN6),"
                    + " which DAT's IA address and connection qualifier need";
        }
        String prov = provider(info);
        if (!OfiConfig.VERIFIED_MSG.contains(prov) && !OfiConfig.unverified()) {
            return "libfabric's " + prov + " provider has not passed jDAT's conformance kit (passed: "
                    + String.join(", ", OfiConfig.VERIFIED_MSG) + "); -D" + OfiConfig.UNVERIFIED_PROPERTY
                    + "=true offers it anyway";
        }
        return modesUnusable(info, dom);
    }

    private static String modesUnusable(MemorySegment info, MemorySegment dom) {
        long modes = FiInfo.mode(info) & ~MODES_HONOURED;
        if (modes != 0) {
            return "it needs mode 0x" + Long.toHexString(modes) + " (FI_CONTEXT, FI_CONTEXT2 or FI_MSG_PREFIX),"
                    + " which the provider does not honour yet";
        }
        int mr = FiDomainAttr.mrMode(dom) & ~(MR_MODES_HONOURED | LibFabric.FI_MR_MMU_NOTIFY
                | LibFabric.FI_MR_RMA_EVENT);
        if (mr != 0) {
            return "it needs mr_mode 0x" + Integer.toHexString(mr) + " (FI_MR_ENDPOINT, FI_MR_RAW or FI_MR_HMEM):"
                    + " DAT registers memory per protection zone, before any endpoint";
        }
        if ((FiDomainAttr.mrMode(dom) & LibFabric.FI_MR_PROV_KEY) != 0 && FiDomainAttr.mrKeySize(dom) > 4) {
            return "its keys are " + FiDomainAttr.mrKeySize(dom) + " bytes and chosen by the provider"
                    + " (FI_MR_PROV_KEY); DAT's rmr_context has 4";
        }
        return null;
    }

    /** Opens the fabric and a passive endpoint to read FI_OPT_CM_DATA_SIZE; -1 when that fails. */
    private static long cmDataSize(LibFabric fi, MemorySegment info) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fabric = fi.fi_fabric(FiInfo.fabricAttr(info), arena.allocate(ADDRESS));
            try {
                MemorySegment out = arena.allocate(ADDRESS);
                if (Fi.fi_passive_ep(fabric, info, out) != 0) {
                    return -1;
                }
                MemorySegment pep = out.get(ADDRESS, 0);
                try {
                    MemorySegment value = arena.allocate(JAVA_LONG);
                    MemorySegment len = arena.allocate(JAVA_LONG);
                    len.set(JAVA_LONG, 0, 8);
                    int rc = Fi.fi_getopt(pep, LibFabric.FI_OPT_ENDPOINT, LibFabric.FI_OPT_CM_DATA_SIZE, value, len);
                    return rc == 0 ? value.get(JAVA_LONG, 0) : -1;
                } finally {
                    Fi.fi_close(pep);
                }
            } finally {
                Fi.fi_close(fabric);
            }
        } catch (FiException e) {
            return -1;
        }
    }

    static MemorySegment ep(MemorySegment info) {
        return FiInfo.epAttr(info).reinterpret(FiEpAttr.SIZEOF);
    }

    static String provider(MemorySegment info) {
        return string(FiFabricAttr.provName(fabricAttr(info)));
    }

    static String fabric(MemorySegment info) {
        return string(FiFabricAttr.name(fabricAttr(info)));
    }

    static String domain(MemorySegment info) {
        return string(FiDomainAttr.name(FiInfo.domainAttr(info).reinterpret(FiDomainAttr.SIZEOF)));
    }

    private static MemorySegment fabricAttr(MemorySegment info) {
        return FiInfo.fabricAttr(info).reinterpret(FiFabricAttr.SIZEOF);
    }

    private static String string(MemorySegment s) {
        return s.address() == 0 ? "" : s.reinterpret(4096).getString(0);
    }

    /** {@return the IP of {@code src_addr}, or {@code null} when it is not a socket address} */
    static InetAddress address(MemorySegment info) {
        MemorySegment sa = FiInfo.srcAddr(info);
        int format = FiInfo.addrFormat(info);
        try {
            if (format == LibFabric.FI_SOCKADDR_IN && sa.address() != 0) {
                byte[] raw = new byte[4];
                MemorySegment.copy(sa.reinterpret(SockaddrIn.SIZEOF), JAVA_BYTE, SockaddrIn.SIN_ADDR, raw, 0, 4);
                return InetAddress.getByAddress(raw);
            }
            if (format == LibFabric.FI_SOCKADDR_IN6 && sa.address() != 0) {
                byte[] raw = new byte[16];
                MemorySegment.copy(sa.reinterpret(SockaddrIn6.SIZEOF), JAVA_BYTE, SockaddrIn6.SIN6_ADDR, raw, 0, 16);
                return InetAddress.getByAddress(raw);
            }
        } catch (UnknownHostException e) {
            return null;
        }
        return null;
    }
}
