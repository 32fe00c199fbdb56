// SPDX-License-Identifier: Apache-2.0
/**
 * The provider SPI: what a vendor implements ({@link dat.spi.DatProvider}, found through {@code ServiceLoader}) and
 * the shell a provider's objects extend, so the protocol DAT fixes is written once, as
 * {@code java.nio.channels.spi.Abstract*} carry what every channel shares.
 *
 * <p>One base per DAT object: {@link dat.spi.AbstractIa} (every create call with its checks, limits and handle
 * resolution, {@code dat_ia_close}, {@code dat_lmr_sync_rdma_*}), {@link dat.spi.AbstractPz},
 * {@link dat.spi.AbstractCno} (complete, over {@link dat.spi.CnoCore}), {@link dat.spi.AbstractLmr},
 * {@link dat.spi.AbstractRmr}, {@link dat.spi.AbstractEvd}, {@link dat.spi.AbstractSrq}, {@link dat.spi.AbstractEp},
 * {@link dat.spi.AbstractPsp}, {@link dat.spi.AbstractRsp} and {@link dat.spi.AbstractCr}, all over
 * {@link dat.spi.AbstractHandle} (the owner IA, {@code dat_*_free} through the IA's {@link dat.spi.HandleSet}) and
 * {@link dat.spi.ProviderHandle} (the closed flag, the consumer context); a provider without SRQs names
 * {@link dat.spi.NoSrq} as its SRQ type. The DAT calls a base implements are
 * final; the provider writes the {@code impl*} hooks, each documented with the lock it runs under and what it may
 * throw. The data path stays the provider's: its posts, dequeues and polls call the shell's allocation-free checks,
 * static ({@link dat.spi.DtoArgs}, {@link dat.spi.LmrTriplet}) or final ({@code check*} of the bases), which the JIT
 * inlines into each provider's own method. {@link dat.spi.DatArgs} holds the control-path checks, with the return
 * codes the man pages give. A provider proves itself against {@code dat.tck}.
 */
package dat.spi;
