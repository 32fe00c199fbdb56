// SPDX-License-Identifier: Apache-2.0
/**
 * The verbs DAT provider: InfiniBand, RoCE and iWARP HCAs through {@code libibverbs.so.1} and
 * {@code librdmacm.so.1}, bound with {@code java.lang.foreign}. Found through {@link java.util.ServiceLoader};
 * its code lives in the non-exported packages {@code dat.provider.verbs.internal} (the provider and DAT objects)
 * and {@code dat.provider.verbs.internal.ffm} (the C bindings and struct layouts).
 *
 * <p>Run with {@code --enable-native-access=dat.provider.verbs}; without it the provider reports itself
 * unavailable with that hint and calls no restricted method.
 */
module dat.provider.verbs {
    requires dat.api;

    provides dat.spi.DatProvider with dat.provider.verbs.internal.VerbsProvider;
}
