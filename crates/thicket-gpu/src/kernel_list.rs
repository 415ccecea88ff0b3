//! [`kernel_modules!`](crate::kernel_modules): a solver crate's kernel modules written once, as
//! one list, from which the module consts, the crate's `ALL`, the structs of loaded kernels
//! and the kernel-compile test all follow.

/// Writes a solver crate's `kernels.rs` from one list of its kernel modules.
///
/// Each entry names a module and says how it is built; the macro generates:
///
/// - the [`KernelModule`](crate::KernelModule) const, with the entry's doc and visibility:
///   `sources` are `include_str!`ed and concatenated in order (paths relative to the file that
///   invokes the macro, as with `include_str!`), `headers` are [`Header`](crate::Header)
///   consts, `linked` says whether the module is relocatable code linked with the device
///   runtime, the optional `one_at_a_time: true` that its host compiles one kernel at a time
///   ([`kernel_options`](crate::KernelModule::kernel_options)), `defines` is the
///   `fn() -> Vec<String>` giving its NVRTC options (the host's constants as
///   [`define`](crate::define)s), and `kernels` lists its `extern "C"` kernels;
/// - `pub const ALL`: every module of the list, in order;
/// - where an entry asks with `functions: <visibility> <Name>`, a struct `Name` with one
///   [`CudaFunction`](cudarc::driver::CudaFunction) field per kernel (named as the kernel) and
///   `Name::load(gpu)`, which loads the module with its defines
///   ([`KernelModule::load`](crate::KernelModule::load): a linked one through
///   [`Gpu::load_linked_module`](crate::Gpu::load_linked_module)) and every kernel with
///   [`Gpu::load_function`](crate::Gpu::load_function). Entries whose host picks kernels by
///   a name it builds (one of many variants) leave it out;
/// - the crate's kernel test (`kernels::every_module::compiles_with_its_kernels_...`), which
///   runs `check_modules` over `ALL`: each module compiles for every architecture from sm_80
///   (those `THICKET_CHECK_ARCHS` names, where it is set), and its image holds every kernel
///   the list names. `check_modules` is test code, behind thicket-gpu's `test-support`
///   feature: a crate that invokes the macro enables it in its `[dev-dependencies]`
///   (`thicket-gpu = { workspace = true, features = ["test-support"] }`).
///
/// ```
/// use thicket_gpu::{define, Gpu, GpuError, THICKET_HEADER};
///
/// /// Threads per block, handed to the kernel as a define.
/// pub const THREADS: usize = 256;
///
/// fn defines() -> Vec<String> {
///     vec![define("THREADS", THREADS)]
/// }
///
/// thicket_gpu::kernel_modules! {
///     /// A module of two kernels (here thicket-gpu's shared header stands in for a `.cu`).
///     pub EXAMPLE: "example.cu" {
///         sources: ["../kernels/thicket.cuh"],
///         headers: [THICKET_HEADER],
///         linked: false,
///         defines: defines,
///         kernels: [scale, shift],
///         functions: pub ExampleKernels,
///     }
/// }
///
/// assert_eq!(ALL.len(), 1);
/// assert_eq!(EXAMPLE.source.name, "example.cu");
/// assert_eq!(EXAMPLE.kernels, ["scale", "shift"]);
/// assert_eq!(EXAMPLE.options(), ["-DTHREADS=256"]);
/// // On a GPU: `let kernels = ExampleKernels::load(&gpu)?;` then launch `kernels.scale`.
/// let _load: fn(&Gpu) -> Result<ExampleKernels, GpuError> = ExampleKernels::load;
/// ```
#[macro_export]
macro_rules! kernel_modules {
    (
        $(
            $(#[$meta:meta])*
            $vis:vis $name:ident : $file:literal {
                sources: [$($source:literal),+ $(,)?],
                headers: [$($header:expr),* $(,)?],
                linked: $linked:literal,
                $(one_at_a_time: $one_at_a_time:literal,)?
                defines: $defines:expr,
                kernels: [$($kernel:ident),* $(,)?],
                $(functions: $functions_vis:vis $functions:ident,)?
            }
        )*
    ) => {
        $(
            $(#[$meta])*
            $vis const $name: $crate::KernelModule = $crate::KernelModule {
                source: $crate::KernelSource {
                    name: $file,
                    source: concat!($(include_str!($source)),+),
                    headers: &[$($header),*],
                },
                linked: $linked,
                one_at_a_time: false $(|| $one_at_a_time)?,
                defines: $defines,
                kernels: &[$(stringify!($kernel)),*],
            };

            $crate::kernel_modules!(
                @functions [$($functions_vis $functions)?] $name $file [$($kernel)*]
            );
        )*

        /// Every kernel module of the crate.
        pub const ALL: [$crate::KernelModule; [$(stringify!($name)),*].len()] = [$($name),*];

        #[cfg(test)]
        mod every_module {
            /// Every module, with its kernels in it, for every architecture from sm_80 (CI:
            /// `THICKET_REQUIRE_NVRTC=1`). Linked modules are only compiled (relocatable
            /// code): linking them needs the device runtime of a CUDA install.
            #[test]
            fn compiles_with_its_kernels_for_every_architecture_from_sm_80() {
                $crate::check_modules(&super::ALL);
            }
        }
    };
    (@functions [] $name:ident $file:literal [$($kernel:ident)*]) => {};
    (@functions [$vis:vis $functions:ident] $name:ident $file:literal [$($kernel:ident)*]) => {
        #[doc = concat!("The kernels of `", $file, "`, loaded onto a device.")]
        #[derive(Debug, Clone)]
        $vis struct $functions {
            $(
                #[doc = concat!("`", stringify!($kernel), "`.")]
                pub $kernel: $crate::cudarc::driver::CudaFunction,
            )*
        }

        impl $functions {
            #[doc = concat!(
                "Loads `", $file, "` onto `gpu` with its defines, and each of its kernels."
            )]
            $vis fn load(gpu: &$crate::Gpu) -> ::core::result::Result<Self, $crate::GpuError> {
                let module = $name.load(gpu)?;
                ::core::result::Result::Ok(Self {
                    $($kernel: gpu.load_function(&module, stringify!($kernel))?,)*
                })
            }
        }
    };
}
