import InactivityCore
print("demo")
