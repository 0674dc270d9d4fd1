from tritonrl.cli import main

main()
