// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.util.List;

/**
 * A provider no service loader lists, for {@code dat.conf} entries that name a provider by class. Public with a
 * public constructor, as the registry instantiates it reflectively.
 */
public final class ClassNamedProvider implements DatProvider {

    /** Needed for reflective instantiation. */
    public ClassNamedProvider() {
    }

    @Override
    public String name() {
        return "by-class";
    }

    @Override
    public DatProviderInfo info() {
        return DatProviderInfo.available("by-class", "1.0", List.of(), List.of());
    }

    @Override
    public DatIaInfo describe(String iaName, String iaParams) {
        return new DatIaInfo(iaName, iaParams, Fixtures.ia(iaName, "by-class").providerAttr(),
                Fixtures.ia(iaName, "by-class").iaAttr());
    }

    @Override
    public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
        throw new DatException(DatReturn.NOT_IMPLEMENTED, "test provider");
    }

    /** A provider class whose constructor fails, for the load-failure path. */
    public static final class Throwing implements DatProvider {

        /** Always fails. */
        public Throwing() {
            throw new IllegalStateException("cannot start");
        }

        @Override
        public String name() {
            return "throwing";
        }

        @Override
        public DatProviderInfo info() {
            return DatProviderInfo.available("throwing", "1.0", List.of(), List.of());
        }

        @Override
        public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
            throw new DatException(DatReturn.NOT_IMPLEMENTED, "test provider");
        }
    }
}
