// SPDX-License-Identifier: Apache-2.0
/**
 * Finds DAT providers and opens IAs by name: the {@code dat.providers} property, {@link java.util.ServiceLoader}
 * and a static registry file in uDAPL's {@code dat.conf} format; selection of IAs by attribute queries that
 * explain every rejection.
 */
// The qualified exports name dat.cli and dat.tck, which build after this module: javac, not finding them, warns.
@SuppressWarnings("module")
module dat.registry {
    requires transitive dat.api;

    exports dat.registry;
    // HOST:CONN_QUAL of a peer on another node, for the kit's cross-node rules and dat perf; no consumer's API.
    exports dat.registry.peer to dat.cli, dat.tck;

    uses dat.spi.DatProvider;
}
