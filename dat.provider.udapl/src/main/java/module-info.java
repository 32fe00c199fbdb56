// SPDX-License-Identifier: Apache-2.0
/**
 * The uDAPL bridge: C uDAPL 2.0 providers behind the jDAT API, through OFA's {@code libdat2.so.2} and the
 * providers its {@code dat.conf} (or {@code DAT_OVERRIDE}) names, bound with {@code java.lang.foreign}. Found
 * through {@link java.util.ServiceLoader}; its code lives in the non-exported packages
 * {@code dat.provider.udapl.internal} (the provider) and {@code dat.provider.udapl.internal.ffm} (the C bindings
 * and the DAT 2.0 struct layouts).
 *
 * <p>Run with {@code --enable-native-access=dat.provider.udapl}; without it the provider reports itself
 * unavailable with that hint and calls no restricted method.
 */
module dat.provider.udapl {
    requires dat.api;

    provides dat.spi.DatProvider with dat.provider.udapl.internal.UdaplProvider;
}
