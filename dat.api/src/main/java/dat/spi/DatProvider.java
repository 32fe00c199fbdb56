// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * What a DAT provider implements to be found by {@link java.util.ServiceLoader}: a cheap factory plus
 * metadata, in the manner of {@code java.net.spi.InetAddressResolverProvider} and libfabric's
 * {@code fi_provider}.
 *
 * <p>The public no-argument constructor and {@link #name()} and {@link #info()} must not touch hardware,
 * load native libraries eagerly in a way that can crash, or throw: discovery calls them for every provider on
 * the path. A provider that cannot work here (no library, no device, native access not enabled) says so in
 * {@link DatProviderInfo#available()} and {@link DatProviderInfo#unavailableReason()}, with the fix.
 * {@link #open} does the real work.
 *
 * <p>Declare it in {@code module-info.java} with {@code provides dat.spi.DatProvider with ...}; jDAT's build
 * also writes {@code META-INF/services/dat.spi.DatProvider} so the class path and OSGi's Service Loader
 * Mediator find it.
 */
public interface DatProvider {

    /**
     * {@return the provider's short name, unique among providers, for example {@code loopback}; what
     * {@code dat.providers} and the library-path field of {@code dat.conf} name} It must equal the
     * {@code provider_name} of the {@link dat.api.DatProviderAttr} the provider reports, since selection queries read
     * that attribute.
     */
    String name();

    /**
     * Describes the provider and the IAs it offers by itself, without opening anything.
     *
     * @return an immutable description; never {@code null}, never throws
     */
    DatProviderInfo info();

    /**
     * Describes an IA named by a static registry entry ({@code dat.conf}) without opening it.
     *
     * <p>The default answers for the IAs {@link #info()} lists and refuses any other name; providers that can
     * create IAs from {@code ia_params} (a loopback IA per entry, a verbs device and port) override it.
     *
     * @param iaName the IA name of the entry
     * @param iaParams the entry's {@code ia_params} field, {@code ""} when empty
     * @return the IA's description
     * @throws DatException {@link DatReturn#PROVIDER_NOT_FOUND} when this provider cannot offer that
     *     IA, {@link DatReturn#INVALID_PARAMETER} when {@code iaParams} is malformed
     */
    default DatIaInfo describe(String iaName, String iaParams) {
        for (DatIaInfo ia : info().ias()) {
            if (ia.iaName().equals(iaName)) {
                return ia;
            }
        }
        throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                "provider " + name() + " offers no IA named " + iaName);
    }

    /**
     * {@code dat_ia_open}: opens an IA and creates its async EVD.
     *
     * @param iaName an IA this provider offers ({@link #info()} or {@link #describe})
     * @param iaParams the static registry entry's {@code ia_params}, {@code ""} when the IA was not configured
     *     by one
     * @param asyncEvdMinQlen the minimum queue length of the async EVD, at least 1
     * @return the open IA
     * @throws DatException {@link DatReturn#PROVIDER_NOT_FOUND} for a name this provider does not
     *     offer, {@link DatReturn#INVALID_PARAMETER} for a bad queue length,
     *     {@link DatReturn#INSUFFICIENT_RESOURCES}, or the reason the provider is unavailable
     */
    DatIa open(String iaName, String iaParams, int asyncEvdMinQlen);
}
