// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.ofi.internal.ffm.FfmLayouts;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.ffm.LibraryUnavailableException;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The libfabric provider: one IA per {@code fi_info} entry of {@code fi_getinfo}, named as {@link OfiConfig#iaName}
 * says ({@code ofi-tcp-lo}).
 *
 * <p>The constructor does nothing. The first {@link #info()} checks, stopping at the first failure: the platform;
 * that this module has native access (before any restricted method); that libfabric loads; that {@code fi_getinfo}
 * finds an entry DAT can run over ({@link OfiScan}). Entries it cannot run over (today every {@code FI_EP_RDM}
 * entry) are not listed as IAs; {@link #describe} and {@link #open} name them with the reason, and when no entry is
 * usable the provider is unavailable with every entry's reason.
 */
public final class OfiProvider implements DatProvider {

    private static final System.Logger LOG = System.getLogger(OfiProvider.class.getName());

    private final Object lock = new Object();
    private Discovery discovery; // guarded by lock

    /** Creates the provider; does no work. */
    public OfiProvider() {
    }

    private record Discovery(DatProviderInfo info, List<OfiEntry> entries, LibFabric fi) {
    }

    @Override
    public String name() {
        return OfiConfig.PROVIDER_NAME;
    }

    @Override
    public DatProviderInfo info() {
        return discovery().info();
    }

    @Override
    public DatIaInfo describe(String iaName, String iaParams) {
        Discovery d = discovery();
        for (OfiEntry e : d.entries()) {
            if (e.iaName().equals(iaName)) {
                if (e.unusable() != null) {
                    // An unusable entry may have no IP address, which DatIaAttr needs: it has no IA to describe.
                    throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                            "provider " + name() + ": IA " + iaName + " is unavailable: " + e.unusable());
                }
                return new DatIaInfo(iaName, iaParams == null ? "" : iaParams, OfiAttributes.providerAttr(e),
                        OfiAttributes.iaAttr(e));
            }
        }
        throw notFound("provider " + name() + " offers no IA named " + iaName, d);
    }

    /** {@code dat_ia_open} of a usable entry's IA. */
    @Override
    public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
        Discovery d = discovery();
        for (OfiEntry e : d.entries()) {
            if (e.iaName().equals(iaName)) {
                if (e.unusable() != null) {
                    throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                            "dat_ia_open: IA " + iaName + " is unavailable: " + e.unusable());
                }
                return OfiIa.open(e, d.fi(), asyncEvdMinQlen);
            }
        }
        throw notFound("dat_ia_open: no IA named " + iaName, d);
    }

    private DatException notFound(String what, Discovery d) {
        String why = d.info().available() ? "" : " (provider " + name() + " is unavailable: "
                + d.info().unavailableReason() + ")";
        return new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED, what + why);
    }

    private Discovery discovery() {
        synchronized (lock) {
            if (discovery == null) {
                discovery = discover();
            }
            return discovery;
        }
    }

    private Discovery discover() {
        try {
            return discoverOrThrow();
        } catch (RuntimeException | LinkageError e) {
            return unavailable("the libfabric scan failed: " + e);
        }
    }

    private Discovery discoverOrThrow() {
        String platform = FfmLayouts.unsupportedPlatformReason();
        if (platform != null) {
            return unavailable(platform);
        }
        Module module = OfiProvider.class.getModule();
        if (!module.isNativeAccessEnabled()) {
            return unavailable(OfiConfig.nativeAccessReason(module));
        }
        LibFabric fi;
        try {
            fi = LibFabric.load(OfiConfig.libfabric());
        } catch (LibraryUnavailableException e) {
            return unavailable(e.getMessage());
        }
        int version = fi.fi_version();
        if (version < LibFabric.version(LibFabric.API_MAJOR, LibFabric.API_MINOR)) {
            return unavailable("libfabric " + (version >>> 16) + "." + (version & 0xffff) + " is older than the "
                    + LibFabric.API_MAJOR + "." + LibFabric.API_MINOR + " the provider needs");
        }
        OfiScan.Result scan = OfiScan.scan(fi);
        if (scan.noEntries() != null) {
            return unavailable(scan.noEntries());
        }
        List<DatIaInfo> usable = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        for (OfiEntry e : scan.entries()) {
            if (e.unusable() == null) {
                usable.add(new DatIaInfo(e.iaName(), "", OfiAttributes.providerAttr(e), OfiAttributes.iaAttr(e)));
            } else {
                reasons.add(e.iaName() + " (" + e.provider() + ", " + e.fabric() + ", " + e.domain() + "): "
                        + e.unusable());
            }
        }
        if (!reasons.isEmpty()) {
            LOG.log(System.Logger.Level.DEBUG, () -> "libfabric entries DAT cannot run over:\n  "
                    + String.join("\n  ", reasons));
        }
        if (usable.isEmpty()) {
            return new Discovery(DatProviderInfo.unavailable(name(), OfiConfig.PROVIDER_VERSION,
                    "no libfabric entry DAT can run over: " + reasons.stream().collect(Collectors.joining("; ")),
                    OfiConfig.settings()), scan.entries(), fi);
        }
        return new Discovery(DatProviderInfo.available(name(), OfiConfig.PROVIDER_VERSION, usable,
                OfiConfig.settings()), scan.entries(), fi);
    }

    private Discovery unavailable(String reason) {
        return new Discovery(DatProviderInfo.unavailable(name(), OfiConfig.PROVIDER_VERSION, reason,
                OfiConfig.settings()), List.of(), null);
    }
}
