#!/usr/bin/env bash
# The system packages `make pdf` needs, from Debian: XeLaTeX and the LaTeX packages Sphinx's
# LaTeX writer loads, latexmk, the DejaVu fonts (the book's symbols: ε, λ, θ̄, ‖·‖, ✓, ✗) and
# poppler-utils (pdftotext, pdfinfo and pdftoppm, for tools/check_pdf.py).
# Does nothing when everything is installed already; installs with apt-get when run as root, and
# otherwise prints the exact command to run.
set -euo pipefail
packages=(texlive-xetex texlive-latex-extra texlive-fonts-recommended latexmk
          fonts-dejavu-core fonts-dejavu-extra poppler-utils)
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
command="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "make pdf needs these Debian packages: ${missing[*]}" >&2
    echo "install them as root with:" >&2
    echo "    apt-get update && $command" >&2
    exit 1
fi
echo "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$command
