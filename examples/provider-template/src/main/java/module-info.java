// SPDX-License-Identifier: Apache-2.0
/**
 * An example DAT provider, the template for a vendor's own: in-process IAs ({@code example0}) whose endpoints
 * connect to each other inside one JVM. Everything a vendor replaces with its hardware sits in
 * {@code com.example.dat.internal}; only the {@code provides} clause is public.
 */
module com.example.dat {
    requires dat.api;

    provides dat.spi.DatProvider with com.example.dat.internal.ExampleProvider;
}
