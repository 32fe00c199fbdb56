// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** Attribute records and mocked providers for the registry and query tests. */
final class Fixtures {

    private Fixtures() {
    }

    static DatIaInfo ia(String iaName, String providerName) {
        return ia(iaName, providerName, p -> p, i -> i);
    }

    static DatIaInfo ia(String iaName, String providerName, UnaryOperator<DatProviderAttr.Builder> provider,
                        UnaryOperator<DatIaAttr.Builder> ia) {
        return new DatIaInfo(iaName, "", provider.apply(DatProviderAttr.builder().providerName(providerName)).build(),
                ia.apply(DatIaAttr.builder().adapterName(iaName)).build());
    }

    /** A mocked available provider offering IAs with default attributes. */
    static DatProvider provider(String name, String... iaNames) {
        List<DatIaInfo> ias = new ArrayList<>();
        for (String iaName : iaNames) {
            ias.add(ia(iaName, name));
        }
        return provider(name, ias);
    }

    static DatProvider provider(String name, List<DatIaInfo> ias) {
        DatProvider provider = mock(DatProvider.class);
        when(provider.name()).thenReturn(name);
        when(provider.info()).thenReturn(DatProviderInfo.available(name, "1.0", ias, List.of()));
        return provider;
    }
}
