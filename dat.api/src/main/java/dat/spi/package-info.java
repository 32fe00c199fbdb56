// SPDX-License-Identifier: Apache-2.0
/**
 * The provider SPI: what a vendor implements ({@link dat.spi.DatProvider}, found through {@code ServiceLoader}) and
 * the shell both shipped providers build on, so the protocol DAT fixes is written once: {@link dat.spi.ProviderHandle}
 * (the free order and the handle checks), {@link dat.spi.HandleSet}, {@link dat.spi.CnoCore}, and
 * {@link dat.spi.DatArgs}, the argument and attribute checks with the return codes the man pages give. A provider
 * proves itself against {@code dat.tck}.
 */
package dat.spi;
