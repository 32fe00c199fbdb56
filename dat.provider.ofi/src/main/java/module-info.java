// SPDX-License-Identifier: Apache-2.0
/**
 * The libfabric DAT provider: one IA per usable {@code fi_info} entry of {@code libfabric.so.1}, bound with
 * {@code java.lang.foreign}. DAT connections run over {@code FI_EP_MSG} endpoints where the fabric has them and
 * over an association of two {@code FI_EP_RDM} endpoints where it has only reliable datagrams. Its code lives in
 * non-exported packages under {@code dat.provider.ofi.internal}.
 *
 * <p>Run with {@code --enable-native-access=dat.provider.ofi}; without it the provider reports itself
 * unavailable with that hint and calls no restricted method.
 */
module dat.provider.ofi {
    requires dat.api;
}
