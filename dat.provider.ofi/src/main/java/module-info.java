// SPDX-License-Identifier: Apache-2.0
/**
 * The libfabric DAT provider: one IA per usable {@code fi_info} entry of {@code libfabric.so.1}, bound with
 * {@code java.lang.foreign}. DAT connections run over {@code FI_EP_MSG} endpoints where the fabric has them, and over
 * reliable datagram endpoints ({@code FI_EP_RDM}: shm, tcp with ofi_rxm, ...) with the provider's own connection
 * protocol (docs/ofi-rdm-protocol.md) where it has only those. Found through {@link java.util.ServiceLoader}; its code
 * lives in the non-exported packages {@code dat.provider.ofi.internal} (the provider and DAT objects),
 * {@code dat.provider.ofi.internal.rdm} (that protocol) and {@code dat.provider.ofi.internal.ffm} (the C bindings and
 * struct layouts).
 *
 * <p>Run with {@code --enable-native-access=dat.provider.ofi}; without it the provider reports itself
 * unavailable with that hint and calls no restricted method.
 */
module dat.provider.ofi {
    requires dat.api;

    provides dat.spi.DatProvider with dat.provider.ofi.internal.OfiProvider;
}
