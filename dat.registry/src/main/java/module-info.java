// SPDX-License-Identifier: Apache-2.0
/**
 * Finds DAT providers and opens IAs by name: the {@code dat.providers} property, {@link java.util.ServiceLoader}
 * and a static registry file in uDAPL's {@code dat.conf} format; selection of IAs by attribute queries that
 * explain every rejection.
 */
module dat.registry {
    requires transitive dat.api;

    exports dat.registry;

    uses dat.spi.DatProvider;
}
