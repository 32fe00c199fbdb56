// SPDX-License-Identifier: Apache-2.0
/**
 * The loopback DAT provider: in-process IAs ({@code loopback0}, ...) whose EPs connect to each other inside
 * one JVM with full DAT 1.2 semantics. Found through {@link java.util.ServiceLoader}; its code lives in the
 * non-exported package {@code dat.provider.loopback.internal}.
 */
module dat.provider.loopback {
    requires dat.api;

    provides dat.spi.DatProvider with dat.provider.loopback.internal.LoopbackProvider;
}
