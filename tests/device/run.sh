#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/device/run.sh [info|test|bench|element|element-test|pipeline|all]...   (default: all)
#
# Runs on the lent GPU machine, from the repository root (the current folder), what
# tests/device/pack.sh packed into .device/waldboost-device.tar.xz: unpacks it
# into /tmp/wb (again only when the archive changed), registers the NVIDIA
# OpenCL ICD, points the dynamic loader and GStreamer into /tmp/wb only, and
# runs the parts asked for. Each part prints its log and, when $OUT is set,
# tees it into $OUT/PART.log (bench also writes $OUT/bench.json, element
# $OUT/element.tsv). "all" is info, test, bench and element.
#
#   info          the machine, the OpenCL devices (waldboost-devices), the
#                 plugin as GStreamer sees it, and a check that every packed
#                 program and library resolves its libraries inside /tmp/wb
#                 or from the base system (glibc, libstdc++, libgcc_s)
#   test          the engine tests on the device: every test-engine-CASE program
#                 (one per concern) that the archive's ENGINE_TESTS names, and
#                 test-template-search
#   bench         waldboost-bench: the engine and OpenCV's CPU detectMultiScale
#                 on the six real frames at 1920x1080 and 3840x2160
#   element       multifilesrc ! rawvideoparse ! waldboostdetect ! fakesink at
#                 1080p and 4K over real frames (looped), timed against the
#                 same pipeline without waldboostdetect
#   element-test  the element tests (GstCheck): every packed test-element-CASE
#                 program, with element-fault-helper; not in "all". With
#                 DEVICE=gpu the cases that ask for device=cpu (PoCL in CI)
#                 print that they did not run (WALDBOOST_TEST_NO_CPU_DEVICE=1)
#   train         the trainer on the device: test-training-opencl (the weight
#                 sums per bin against a plain computation, the same classifier
#                 as the CPU's) and test-engine-miner (mining on the engine),
#                 then tests/train_timing.sh: ms per weak classifier with
#                 --device=cpu (the host's cores) and --device=opencl, side by
#                 side (TRAIN_COPIES, TRAIN_WEAK, TRAIN_FEATURES; TRAIN_DATA: the
#                 images' folder, default the archive's data; TRAIN_SET and
#                 TRAIN_ARGS as train_timing.sh reads them; TRAIN_TESTS=0: the
#                 timing only). Not in "all"
#   pipeline      waldboost-pipeline-bench: 1, 4, 16 and 64 streams of the raw
#                 1080p and 4K frames in one process (the engines alone, appsrc
#                 ! fakesink, appsrc ! waldboostdetect ! fakesink, the device's
#                 busy fraction, every stream's boxes checked); $OUT/pipeline.json
#                 and $OUT/pipeline.md. Not in "all" (minutes at 64 streams)
#
# Environment (defaults for DEVICE=gpu; DEVICE=cpu has lighter ones, in brackets):
#   DEVICE=gpu        gpu: the NVIDIA ICD only; cpu: PoCL from /etc/OpenCL/vendors
#                     (for a dry run on a machine without GPU)
#   DEV_SPEC          the device spec given to the tools and the element (default $DEVICE)
#   WB_ARCHIVE        the archive (default REPO/.device/waldboost-device.tar.xz);
#                     an archive packed with WB_PACK=bins is unpacked over
#                     WB_BASE (default REPO/.device/baseline.tar.xz)
#   WB_DIR=/tmp/wb    where it is unpacked;  WB_TMP=/tmp/wb-run: registry, caches, frames
#   WB_TAG            logs go to $OUT/$WB_TAG/ (two builds in one call, e.g. WB_TAG=baseline)
#   NVIDIA_OPENCL     the NVIDIA OpenCL library (default /usr/local/nvidia/lib64/libnvidia-opencl.so.1)
#   TEST_FILTER       --gtest_filter for each engine test program (and no test-template-search)
#   TEST_TIMEOUT=480 [1200]  for the engine test programs together (cold caches: ~250 s on the H200),
#                     and for each other test program
#   BENCH_RUNS=5 [1]  BENCH_SIZES=1920x1080,3840x2160 [640x480]  BENCH_ARGS (more options)
#   BENCH_CLASSIFIERS the -c options (default the two LBP face cascades; the
#                     packed Haar ones are in data/haar, e.g.
#                     BENCH_CLASSIFIERS='-c /tmp/wb/data/haar/haarcascade_frontalface_default.xml')
#   BENCH_TIMEOUT=300 [1200]
#   ELEMENT_SIZES="1920x1080 3840x2160"  ELEMENT_FRAMES_1080=1000 [20]  ELEMENT_FRAMES_4K=500 [5]
#   ELEMENT_FRAMES    both counts at once;  ELEMENT_PROPS   more waldboostdetect properties
#   ELEMENT_FORMATS=gray8  the frames' formats, rawvideoparse's names (e.g. "gray8 i420 yuy2"); each
#                     but gray8 is made from the gray frames with videoconvert once, and adds the
#                     variant "convert+detect" (videoconvert to I420 before the element)
#   ELEMENT_TIMEOUT=60 [600] per pipeline
#   PIPE_STREAMS=1,4,16,64 [1,2]  PIPE_SIZES=1920x1080,3840x2160 [640x480]
#   PIPE_FRAMES=300 [10] per stream  PIPE_ARGS (more options, e.g. --streams-for 3840x2160=1,4,16)
#   PIPE_RAW="FILE WxH": a raw GRAY8 file of consecutive frames instead of the packed ones (tracking)
#   PIPE_AFTER="ELEMENTS": waldboost-pipeline-bench --after, e.g. "waldboostmetaconvert source-id=cam{stream} !
#                 waldboostmetapublish file-path=/tmp/wb-json/cam{stream}.jsonl" (the publish plugin is packed)
#   PIPE_TIMEOUT=540 [1200] the whole part; each pipeline part of a row gets at most PIPE_ROW_TIMEOUT=120 [600]
set -uo pipefail

# the repository root is the current folder (the device tool runs commands
# there), so that a copy of this script in .device/ works as well
repo=$PWD
DEVICE=${DEVICE:-gpu}
case $DEVICE in gpu|cpu) ;; *) echo "run.sh: DEVICE must be gpu or cpu" >&2; exit 2 ;; esac
DEV_SPEC=${DEV_SPEC:-$DEVICE}
wb=${WB_DIR:-/tmp/wb}
tmp=${WB_TMP:-/tmp/wb-run}
archive=${WB_ARCHIVE:-$repo/.device/waldboost-device.tar.xz}
base=${WB_BASE:-$repo/.device/baseline.tar.xz}
if [ $DEVICE = gpu ]; then light=no; else light=yes; fi
pick() { if [ $light = yes ]; then echo "$2"; else echo "$1"; fi; }
TEST_TIMEOUT=${TEST_TIMEOUT:-$(pick 480 1200)}
BENCH_RUNS=${BENCH_RUNS:-$(pick 5 1)}
BENCH_SIZES=${BENCH_SIZES:-$(pick 1920x1080,3840x2160 640x480)}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-$(pick 300 1200)}
ELEMENT_SIZES=${ELEMENT_SIZES:-1920x1080 3840x2160}
ELEMENT_FORMATS=${ELEMENT_FORMATS:-gray8}
ELEMENT_FRAMES_1080=${ELEMENT_FRAMES:-${ELEMENT_FRAMES_1080:-$(pick 1000 20)}}
ELEMENT_FRAMES_4K=${ELEMENT_FRAMES:-${ELEMENT_FRAMES_4K:-$(pick 500 5)}}
ELEMENT_TIMEOUT=${ELEMENT_TIMEOUT:-$(pick 60 600)}
PIPE_STREAMS=${PIPE_STREAMS:-$(pick 1,4,16,64 1,2)}
PIPE_SIZES=${PIPE_SIZES:-$(pick 1920x1080,3840x2160 640x480)}
PIPE_FRAMES=${PIPE_FRAMES:-$(pick 300 10)}
PIPE_TIMEOUT=${PIPE_TIMEOUT:-$(pick 540 1200)}
PIPE_ROW_TIMEOUT=${PIPE_ROW_TIMEOUT:-$(pick 120 600)}

die() { echo "run.sh: $*" >&2; exit 1; }
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(all)
expanded=()
for p in "${parts[@]}"; do
  case $p in
    all) expanded+=(info test bench element) ;;
    info|test|bench|element|element-test|pipeline|train) expanded+=("$p") ;;
    *) die "unknown part '$p' (info, test, bench, element, element-test, pipeline, train, all)" ;;
  esac
done

# --- unpack ------------------------------------------------------------------
decompress() {
  if command -v xz >/dev/null; then
    xz -dc -T0 "$1"
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer, 1 << 20)' "$1"
  fi
}
unpack() {  # ARCHIVE DIR
  rm -rf "$2" && mkdir -p "$2" && decompress "$1" | tar -C "$2" -xf - || die "could not unpack $1"
}
[ -f "$archive" ] || die "$archive not found (tests/device/pack.sh makes it; carry .device)"
stamp="$(cksum < "$archive")"
[ -f "$base" ] && stamp="$stamp $(cksum < "$base")"
if [ "$(cat "$wb/.stamp" 2>/dev/null)" != "$stamp" ]; then
  t0=$(date +%s.%N)
  unpack "$archive" "$wb.new"
  if grep -q '^kind=bins' "$wb.new/MANIFEST"; then
    [ -f "$base" ] || die "$archive holds only binaries and needs a full archive, $base, not found"
    unpack "$base" "$wb"
    grep -q '^kind=full' "$wb/MANIFEST" || die "$base is not a full archive"
    mv "$wb/MANIFEST" "$wb/MANIFEST.base"
    cp -a "$wb.new/." "$wb/" && rm -rf "$wb.new"
  else
    rm -rf "$wb" && mv "$wb.new" "$wb"
  fi
  echo "$stamp" > "$wb/.stamp"
  echo "run.sh: unpacked $archive into $wb in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
fi

# --- environment ---------------------------------------------------------------
rm -rf "$tmp" && mkdir -p "$tmp/cache" "$tmp/empty" "$tmp/icd" "$tmp/logs" || die "cannot make $tmp"
: > "$tmp/empty/loaders.cache"
if [ $DEVICE = gpu ]; then
  nv=${NVIDIA_OPENCL:-/usr/local/nvidia/lib64/libnvidia-opencl.so.1}
  [ -e "$nv" ] || nv=$(ldconfig -p 2>/dev/null | awk '$1 == "libnvidia-opencl.so.1" {print $NF; exit}')
  [ -n "$nv" ] && [ -e "$nv" ] || die "the NVIDIA OpenCL library was not found (set NVIDIA_OPENCL)"
  # as the machine's notes say; OCL_ICD_VENDORS below makes it the only ICD ours loads
  { mkdir -p /etc/OpenCL/vendors && echo "$nv" > /etc/OpenCL/vendors/nvidia.icd; } 2>/dev/null ||
    echo "run.sh: note: could not write /etc/OpenCL/vendors/nvidia.icd (not needed)"
  echo "$nv" > "$tmp/icd/nvidia.icd"
else
  for f in /etc/OpenCL/vendors/*.icd; do
    case $f in *nvidia*) ;; *) [ -f "$f" ] && cp "$f" "$tmp/icd/" ;; esac
  done
  ls "$tmp"/icd/*.icd >/dev/null 2>&1 || die "DEVICE=cpu: no ICD (PoCL) in /etc/OpenCL/vendors"
fi
export OCL_ICD_VENDORS=$tmp/icd
export GST_PLUGIN_SYSTEM_PATH=$wb/gst-plugins GST_PLUGIN_SYSTEM_PATH_1_0=$wb/gst-plugins
export GST_PLUGIN_PATH=$wb/plugin GST_PLUGIN_PATH_1_0=$wb/plugin
export GST_PLUGIN_SCANNER=$wb/libexec/gst-plugin-scanner GST_PLUGIN_SCANNER_1_0=$wb/libexec/gst-plugin-scanner
export GST_REGISTRY=$tmp/registry.bin GST_REGISTRY_1_0=$tmp/registry.bin
export GST_DEBUG_NO_COLOR=1
export XDG_CACHE_HOME=$tmp/cache
export WALDBOOST_TUNING_DISABLE=1
# GIO modules and gdk-pixbuf loader modules: none (PNG and JPEG are built in);
# the MIME database that gdk-pixbuf needs to recognise a file: the packed one
export GIO_MODULE_DIR=$tmp/empty GDK_PIXBUF_MODULE_FILE=$tmp/empty/loaders.cache
export XDG_DATA_DIRS=$wb/share
# box-text's font (pack.sh): the packed configuration and font only
export FONTCONFIG_FILE=$wb/share/fonts/fonts.conf
# Only our programs get the packed libraries: the machine's own tools keep theirs.
libpath=$wb/lib
[ -d /usr/local/nvidia/lib64 ] && libpath=$libpath:/usr/local/nvidia/lib64
libpath=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
wbenv=(env "LD_LIBRARY_PATH=$libpath")
logdir=${OUT:-$tmp/logs}${WB_TAG:+/$WB_TAG}
mkdir -p "$logdir"
data=$wb/data

# --- parts -----------------------------------------------------------------------
base_re='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl)\.so'
part_info() {
  sed -n '/^files:/q;p' "$wb/MANIFEST"
  [ -f "$wb/MANIFEST.base" ] && { echo "(over the full archive:)"; sed -n '/^files:/q;p' "$wb/MANIFEST.base"; }
  echo "DEVICE=$DEVICE DEV_SPEC=$DEV_SPEC OCL_ICD_VENDORS: $(cat "$tmp"/icd/*.icd | tr '\n' ' ')"
  echo "host: $(uname -srm), $(nproc) cores, $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv 2>/dev/null
  else
    echo "(no nvidia-smi)"
  fi
  echo "--- waldboost-devices"
  if [ -x "$wb/bin/waldboost-devices" ]; then
    "${wbenv[@]}" "$wb/bin/waldboost-devices" || echo "waldboost-devices failed"
    "${wbenv[@]}" "$wb/bin/waldboost-devices" --select "$DEV_SPEC" || echo "waldboost-devices --select $DEV_SPEC failed"
  else
    echo "(not packed)"
  fi
  echo "--- GStreamer"
  "${wbenv[@]}" "$wb/bin/gst-launch-1.0" --version | head -1
  "${wbenv[@]}" "$wb/bin/gst-inspect-1.0" waldboostdetect | sed -n '/^Plugin Details/,/^$/p' || return 1
  echo "plugins: $("${wbenv[@]}" "$wb/bin/gst-inspect-1.0" | awk -F: '/:/ && !/^Total count/ {print $1}' | sort -u | tr '\n' ' ')"
  echo "--- libraries"
  local f out bad=0 loader
  loader=$(ls /lib64/ld-linux-x86-64.so.2 2>/dev/null || echo /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
  for f in "$wb"/bin/* "$wb"/libexec/* "$wb"/plugin/*.so "$wb"/gst-plugins/*.so "$wb"/lib/*; do
    out=$(env "LD_LIBRARY_PATH=$wb/lib" "$loader" --list "$f" 2>&1)
    if grep -q 'not found' <<<"$out"; then
      echo "MISSING for ${f#$wb/}: $(grep 'not found' <<<"$out" | awk '{print $1}' | tr '\n' ' ')"
      bad=1
    fi
    awk -v wb="$wb/lib/" '$2 == "=>" && $3 ~ /^\// && index($3, wb) != 1 {print $1, $3}' <<<"$out" |
      while read -r soname path; do
        [[ $soname =~ $base_re ]] || echo "outside the archive for ${f#$wb/}: $soname => $path"
      done
  done
  [ $bad = 0 ] && echo "every packed program and library finds its libraries"
  return $bad
}

part_test() {
  # The engine tests: one program per concern (tests/engine/meson.build),
  # named in ENGINE_TESTS by pack.sh, in turn, all within TEST_TIMEOUT.
  local exe left rc status=0 engine_tests=()
  local deadline=$(($(date +%s) + TEST_TIMEOUT))
  [ -f "$wb/ENGINE_TESTS" ] || { echo "no ENGINE_TESTS in the archive (packed before the engine tests were split?)"; return 1; }
  mapfile -t engine_tests < "$wb/ENGINE_TESTS"
  [ ${#engine_tests[@]} -gt 0 ] || { echo "ENGINE_TESTS names no program"; return 1; }
  for exe in "${engine_tests[@]}"; do
    [ -x "$wb/bin/$exe" ] || { echo "$exe was not packed"; status=1; continue; }
    left=$((deadline - $(date +%s)))
    [ $left -gt 0 ] || { echo "--- $exe: not run, TEST_TIMEOUT ($TEST_TIMEOUT s) spent"; status=124; continue; }
    echo "--- $exe"
    WALDBOOST_TEST_DEVICE=$DEV_SPEC WALDBOOST_TEST_DATA=$data WALDBOOST_CASCADE_DIR=$data \
    WALDBOOST_CONVERTED_DIR=$data/classifiers WALDBOOST_HAAR_DIR=$data/haar WALDBOOST_REQUIRE_TEST_DATA=1 \
      timeout -k 10 "$left" "${wbenv[@]}" "$wb/bin/$exe" ${TEST_FILTER:+--gtest_filter=$TEST_FILTER}
    rc=$?
    [ $rc = 0 ] || { echo "--- $exe: FAILED rc $rc"; status=$rc; }
  done
  # The tracker's template search, several streams' in one launch included.
  if [ -z "${TEST_FILTER:-}" ] && [ -x "$wb/bin/test-template-search" ]; then
    WALDBOOST_TEST_DEVICE=$DEV_SPEC timeout -k 10 "$TEST_TIMEOUT" "${wbenv[@]}" "$wb/bin/test-template-search" || status=1
  fi
  return $status
}

part_train() {
  local status=0 exe train_data=${TRAIN_DATA:-$data}
  case $train_data in /*) ;; *) train_data=$repo/$train_data ;; esac
  for exe in test-training-opencl test-engine-miner; do
    [ "${TRAIN_TESTS:-1}" = 1 ] || break
    [ -x "$wb/bin/$exe" ] || { echo "$exe was not packed"; return 1; }
    WALDBOOST_TEST_DEVICE=$DEV_SPEC WALDBOOST_TEST_DATA=$train_data WALDBOOST_REQUIRE_TEST_DATA=1 \
      timeout -k 10 "$TEST_TIMEOUT" "${wbenv[@]}" "$wb/bin/$exe" || status=1
  done
  WALDBOOST_TEST_DATA=$train_data timeout -k 10 "$TEST_TIMEOUT" "${wbenv[@]}" tests/train_timing.sh \
    "$wb/bin/waldboost-train" "cpu opencl" "${TRAIN_COPIES:-700}" "${TRAIN_WEAK:-20}" "${TRAIN_FEATURES:-lbp lrd}" ||
    status=1
  return $status
}

part_element_test() {
  [ -x "$wb/bin/element-fault-helper" ] || { echo "element-fault-helper was not packed"; return 1; }
  local exe ran=0 status=0
  for exe in "$wb"/bin/test-element-*; do
    [ -x "$exe" ] || continue
    ran=$((ran + 1))
    echo "--- ${exe##*/}"
    WALDBOOST_TEST_DATA=$data WALDBOOST_CASCADE_DIR=$data WALDBOOST_CONVERTED_DIR=$data/classifiers \
    WALDBOOST_HAAR_DIR=$data/haar WALDBOOST_CACHE_DIR=$tmp/cache/element-tests CK_DEFAULT_TIMEOUT=300 \
    WALDBOOST_FAULT_HELPER=$wb/bin/element-fault-helper WALDBOOST_TEST_NO_CPU_DEVICE=$([ "$DEVICE" = gpu ] && echo 1 || echo 0) \
      timeout -k 10 "$TEST_TIMEOUT" "${wbenv[@]}" "$exe" || status=1
  done
  [ $ran -gt 0 ] || { echo "no test-element-* program was packed"; return 1; }
  return $status
}

part_bench() {
  local images=("$data/messi5.jpg" "$data/astronaut.png")
  local n
  for n in 030 090 150 210; do images+=("$data/megamind-$n.png"); done
  # shellcheck disable=SC2086
  timeout -k 10 "$BENCH_TIMEOUT" "${wbenv[@]}" "$wb/bin/waldboost-bench" --device "$DEV_SPEC" \
    --runs "$BENCH_RUNS" --no-umat --sizes "$BENCH_SIZES" \
    ${BENCH_CLASSIFIERS:--c $data/lbpcascade_frontalface.xml -c $data/lbpcascade_frontalface_improved.xml} \
    --json "$logdir/bench.json" ${BENCH_ARGS:-} "${images[@]}"
}

# gst-launch-1.0 over N buffers; prints "EXEC_S WALL_S" (EXEC_S: PLAYING to
# EOS as gst-launch reports it, i.e. after the preroll that opens the device
# and takes the first frame; WALL_S: the whole process).
launch() {
  local t0 t1 log rc
  log=$tmp/launch.log
  t0=$(date +%s.%N)
  # shellcheck disable=SC2068
  timeout -k 10 "$ELEMENT_TIMEOUT" "${wbenv[@]}" "$wb/bin/gst-launch-1.0" $@ > "$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc != 0 ] || ! grep -q 'Execution ended after' "$log"; then
    echo "gst-launch-1.0 $* failed (rc $rc):" >&2
    tail -20 "$log" >&2
    return 1
  fi
  awk -v a="$t0" -v b="$t1" '/Execution ended after/ {
      split($4, p, ":"); printf "%.6f %.3f\n", p[1] * 3600 + p[2] * 60 + p[3], b - a; exit }' "$log"
}

part_element() {
  local size w h n file count dir src variant variants pipeline r exec wall status=0
  local format fdir fext tag f det tsv=$logdir/element.tsv
  printf 'size\tvariant\tframes\texec_s\tms_per_frame\tfps\twall_s\n' > "$tsv"
  echo "device=$DEV_SPEC ${ELEMENT_PROPS:+props: $ELEMENT_PROPS }(frames looped from $(grep '^frames=' "$wb/MANIFEST" | cut -d= -f2))"
  echo "timed from PLAYING to EOS (gst-launch's 'Execution ended after'): the preroll, which opens the"
  echo "device and takes the first frame, is not in it; wall is the whole gst-launch-1.0 process"
  for size in $ELEMENT_SIZES; do
    w=${size%x*} h=${size#*x}
    file=$data/frames-$size.gray
    [ -f "$file" ] || { echo "$file not packed"; status=1; continue; }
    count=$(( $(stat -c %s "$file") / (w * h) ))
    if [ "$h" -ge 2160 ]; then n=$ELEMENT_FRAMES_4K; else n=$ELEMENT_FRAMES_1080; fi
    dir=$tmp/frames-$size
    if [ ! -d "$dir" ]; then
      mkdir -p "$dir" && split -b $((w * h)) -d -a 3 --additional-suffix=.gray "$file" "$dir/f-" || return 1
    fi
    det="waldboostdetect device=$DEV_SPEC ${ELEMENT_PROPS:-}"
    for format in $ELEMENT_FORMATS; do
      fdir=$dir fext=gray tag=
      if [ "$format" != gray8 ]; then
        # the gray frames in this format, made once (the chroma is flat grey)
        fdir=$tmp/frames-$size-$format fext=raw tag="$format "
        if [ ! -d "$fdir" ]; then
          mkdir -p "$fdir"
          for f in "$dir"/f-*.gray; do
            f=${f##*/}
            timeout -k 10 "$ELEMENT_TIMEOUT" "${wbenv[@]}" "$wb/bin/gst-launch-1.0" -q filesrc location="$dir/$f" \
              ! rawvideoparse format=gray8 width="$w" height="$h" ! videoconvert ! "video/x-raw,format=${format^^}" \
              ! filesink location="$fdir/${f%.gray}.raw" || { echo "$format frames could not be made"; return 1; }
          done
        fi
      fi
      src="multifilesrc location=$fdir/f-%03d.$fext index=0 stop-index=$((count - 1)) loop=true num-buffers=@N@ ! rawvideoparse format=$format width=$w height=$h framerate=30/1"
      # warm-up: the kernels built and cached once, not timed
      r=$(launch "${src//@N@/$(( n < 10 ? n : 10 ))} ! $det ! fakesink sync=false") || { status=1; continue; }
      printf '%-9s %-26s %5s frames  startup+run %6.2f s (warm-up, kernels built)\n' "$size" "${tag}warm-up" \
        "$(( n < 10 ? n : 10 ))" "${r#* }"
      variants="source detect queue+detect"
      [ "$format" = gray8 ] || variants="$variants convert+detect"
      for variant in $variants; do
        case $variant in
          source) pipeline="${src//@N@/$n} ! fakesink sync=false" ;;
          detect) pipeline="${src//@N@/$n} ! $det ! fakesink sync=false" ;;
          queue+detect) pipeline="${src//@N@/$n} ! queue max-size-buffers=4 ! $det ! fakesink sync=false" ;;
          convert+detect) pipeline="${src//@N@/$n} ! videoconvert ! video/x-raw,format=I420 ! $det ! fakesink sync=false" ;;
        esac
        r=$(launch "$pipeline") || { status=1; continue; }
        exec=${r% *} wall=${r#* }
        awk -v s="$size" -v v="$tag$variant" -v n="$n" -v e="$exec" -v w="$wall" -v tsv="$tsv" 'BEGIN {
            printf "%-9s %-26s %5d frames  %8.3f ms/frame  %8.1f fps  (%.3f s; wall %.2f s)\n", s, v, n, e * 1000 / n, n / e, e, w
            printf "%s\t%s\t%d\t%.6f\t%.4f\t%.2f\t%.3f\n", s, v, n, e, e * 1000 / n, n / e, w >> tsv }'
      done
    done
  done
  echo "pipeline: ${src//@N@/N} [! queue] ! $det ! fakesink sync=false"
  return $status
}

part_pipeline() {
  [ -x "$wb/bin/waldboost-pipeline-bench" ] || { echo "waldboost-pipeline-bench was not packed"; return 1; }
  local raw=() size
  if [ -n "${PIPE_RAW:-}" ]; then
    # consecutive frames of a video (tracking): "FILE WxH", stretched to every size
    raw=(--raw "${PIPE_RAW%% *}" --raw-size "${PIPE_RAW##* }")
  else
    # every packed raw file: a size with its own frames uses them, others get all of them stretched
    for size in 1920x1080 3840x2160; do
      [ -f "$data/frames-$size.gray" ] && raw+=(--raw "$data/frames-$size.gray" --raw-size "$size")
    done
  fi
  [ ${#raw[@]} -gt 0 ] || { echo "no raw frames packed"; return 1; }
  # shellcheck disable=SC2086
  timeout -k 10 "$PIPE_TIMEOUT" "${wbenv[@]}" "$wb/bin/waldboost-pipeline-bench" --device "$DEV_SPEC" \
    --streams "$PIPE_STREAMS" --sizes "$PIPE_SIZES" --frames "$PIPE_FRAMES" --timeout "$PIPE_ROW_TIMEOUT" \
    --json "$logdir/pipeline.json" --markdown "$logdir/pipeline.md" ${PIPE_ARGS:-} \
    ${PIPE_AFTER:+--after "$PIPE_AFTER"} "${raw[@]}"
}

# --- run them ----------------------------------------------------------------------
declare -A result
overall=0
for p in "${expanded[@]}"; do
  echo "=== $p ($(date -u +%H:%M:%S))"
  t0=$(date +%s.%N)
  "part_${p//-/_}" 2>&1 | tee "$logdir/$p.log"
  rc=${PIPESTATUS[0]}
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  if [ "$rc" = 0 ]; then result[$p]="ok (${secs} s)"; else result[$p]="FAILED rc $rc (${secs} s)"; overall=1; fi
  echo "=== $p: ${result[$p]}"
done
echo "=== summary ($DEVICE, $(grep '^describe=' "$wb/MANIFEST" | cut -d= -f2); logs in $logdir)"
for p in "${expanded[@]}"; do echo "  $p: ${result[$p]}"; done
exit $overall
