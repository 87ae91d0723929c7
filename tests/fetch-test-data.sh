#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fetches the real test images from Debian packages into DEST (default
# build/testdata): messi5.jpg, Megamind.avi and vtest.avi from opencv-doc, astronaut.png
# from python3-skimage, and the face-free backgrounds of the tracking ground
# truth (tests/tracking): building.jpg, leuvenA.jpg, board.jpg, fruits.jpg and
# aero3.jpg from opencv-doc, coffee.png, gravel.png and brick.png from
# python3-skimage, and the other face-free opencv-doc images of the face
# set (pipelines/training/make-face-set.py), and the photos of people of the
# whole-scene face set (pipelines/training/make-face-scenes.py): basketball1/2.png
# and seven photos of opencv-doc's HTML tutorials, grace_hopper.jpg from
# python-matplotlib-data. Nothing is installed; the .deb files are downloaded
# with apt-get download and only the needed files are unpacked.
set -eu
dest=${1:-build/testdata}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

want_opencv="messi5.jpg Megamind.avi vtest.avi building.jpg leuvenA.jpg board.jpg fruits.jpg aero3.jpg
  leuvenB.jpg ela_original.jpg ela_modified.jpg aero1.jpg aloeL.jpg aloeR.jpg apple.jpg box.png box_in_scene.png
  butterfly.jpg cards.png digits.png home.jpg imageTextN.png licenseplate_motion.jpg orange.jpg pca_test1.jpg
  rubberwhale1.png rubberwhale2.png smarties.png starry_night.jpg stuff.jpg sudoku.png text_defocus.jpg
  text_motion.jpg basketball1.png basketball2.png"
# Photos of people in opencv-doc's HTML tutorials (their file names as there).
want_html="227943776_1.jpg 230501201_1.jpg face_swapped.jpg example.jpg 05.jpg 12.jpg blurred.png"
want_skimage="astronaut.png coffee.png gravel.png brick.png"
want_matplotlib="grace_hopper.jpg"
have_all=yes
for f in $want_opencv $want_html $want_skimage $want_matplotlib; do [ -s "$dest/$f" ] || have_all=no; done
[ "$have_all" = yes ] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# apt-get download runs as the _apt user when it can; give it a folder it may write.
chmod 777 "$work"
packages="opencv-doc python3-skimage python-matplotlib-data"
# shellcheck disable=SC2086 # $packages is a list
if ! apt-get download $packages >/dev/null 2>download.log; then
  apt-get update -qq >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  apt-get download $packages >/dev/null 2>download.log || {
    cat download.log >&2; echo "fetch-test-data: apt-get download failed" >&2; exit 1; }
fi

opencv_data=./usr/share/doc/opencv-doc/examples/data
opencv_html=./usr/share/doc/opencv-doc/opencv4/html
dpkg-deb --fsys-tarfile opencv-doc_*.deb | tar -x $(for f in $want_opencv; do echo "$opencv_data/$f"; done) \
  $(for f in $want_html; do echo "$opencv_html/$f"; done)
skimage_data=./usr/lib/python3/dist-packages/skimage/data
dpkg-deb --fsys-tarfile python3-skimage_*.deb | tar -x $(for f in $want_skimage; do echo "$skimage_data/$f"; done)
matplotlib_data=./usr/share/matplotlib/mpl-data/sample_data
dpkg-deb --fsys-tarfile python-matplotlib-data_*.deb | tar -x $(for f in $want_matplotlib; do echo "$matplotlib_data/$f"; done)
for f in $want_opencv; do cp "$opencv_data/$f" "$dest/"; done
for f in $want_html; do cp "$opencv_html/$f" "$dest/"; done
for f in $want_matplotlib; do cp "$matplotlib_data/$f" "$dest/"; done
for f in $want_skimage; do cp "$skimage_data/$f" "$dest/"; done
echo "fetch-test-data: $(ls "$dest" | tr '\n' ' ')in $dest"
