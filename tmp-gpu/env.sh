rm -rf gpu-bundle; tar xzf build-carry/bundle.tgz
export NBODYLAB_ROOT=$PWD LD_LIBRARY_PATH=$PWD/gpu-bundle/lib:/usr/local/cuda/lib64 NBODYLAB_KERNEL_CACHE=/tmp/nbodylab-kernel-cache
J=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f $J ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$J
B=$PWD/gpu-bundle/bin
